package workapply

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// Ref identifies a manifest of a Work: its position and object identity.
type Ref struct {
	Ordinal   int
	GVK       schema.GroupVersionKind
	Namespace string
	Name      string
}

// Identifier is the Work status identifier of the manifest. Karmada leaves
// resource empty.
func (r Ref) Identifier() workv1alpha1.ResourceIdentifier {
	return workv1alpha1.ResourceIdentifier{
		Ordinal: r.Ordinal, Group: r.GVK.Group, Version: r.GVK.Version, Kind: r.GVK.Kind,
		Namespace: r.Namespace, Name: r.Name,
	}
}

func (r Ref) String() string {
	if r.Namespace == "" {
		return fmt.Sprintf("%s %s", r.GVK.Kind, r.Name)
	}
	return fmt.Sprintf("%s %s/%s", r.GVK.Kind, r.Namespace, r.Name)
}

// manifestMeta is the part of a manifest Refs decodes.
type manifestMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"metadata"`
}

// Refs decodes the identity of every manifest of work, without decoding
// the manifests in full.
func Refs(work *workv1alpha1.Work) ([]Ref, error) {
	refs := make([]Ref, 0, len(work.Spec.Workload.Manifests))
	for i, m := range work.Spec.Workload.Manifests {
		var mm manifestMeta
		if err := json.Unmarshal(m.Raw, &mm); err != nil {
			return nil, fmt.Errorf("work %s/%s: manifest %d: %w", work.Namespace, work.Name, i, err)
		}
		gv, err := schema.ParseGroupVersion(mm.APIVersion)
		if err != nil || mm.Kind == "" || mm.Metadata.Name == "" {
			return nil, fmt.Errorf("work %s/%s: manifest %d lacks apiVersion, kind or name", work.Namespace, work.Name, i)
		}
		refs = append(refs, Ref{Ordinal: i, GVK: gv.WithKind(mm.Kind), Namespace: mm.Metadata.Namespace, Name: mm.Metadata.Name})
	}
	return refs, nil
}
