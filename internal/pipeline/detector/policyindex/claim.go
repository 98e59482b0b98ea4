package policyindex

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/shared/names"
)

// Claim is the claim a template or binding carries: the permanent id of a
// PropagationPolicy or (Cluster) of a ClusterPropagationPolicy.
type Claim struct {
	Cluster bool
	ID      string
}

// ClaimOf reads obj's claim; a PropagationPolicy claim wins if both exist.
func ClaimOf(obj metav1.Object) Claim {
	if id := obj.GetLabels()[names.PropagationPolicyPermanentIDLabel]; id != "" {
		return Claim{ID: id}
	}
	return Claim{Cluster: true, ID: obj.GetLabels()[names.ClusterPropagationPolicyPermanentIDLabel]}
}

// ClaimBy is p's claim.
func ClaimBy(p *Policy) Claim { return Claim{Cluster: p.Cluster, ID: p.ID} }

// LabelKey is the label the claim's id is written under.
func (c Claim) LabelKey() string {
	if c.Cluster {
		return names.ClusterPropagationPolicyPermanentIDLabel
	}
	return names.PropagationPolicyPermanentIDLabel
}

// ClaimRef names the policy a template's claim metadata points to.
type ClaimRef struct {
	Cluster   bool
	Namespace string
	Name      string
}

// ClaimRefOf reads who claims obj: a PropagationPolicy when its namespace
// and name annotations and id label are all set, else a
// ClusterPropagationPolicy when its name annotation and id label are set.
func ClaimRefOf(obj metav1.Object) (ClaimRef, bool) {
	l, a := obj.GetLabels(), obj.GetAnnotations()
	if ns, name := a[names.PropagationPolicyNamespaceAnnotation], a[names.PropagationPolicyNameAnnotation]; ns != "" && name != "" && l[names.PropagationPolicyPermanentIDLabel] != "" {
		return ClaimRef{Namespace: ns, Name: name}, true
	}
	if name := a[names.ClusterPropagationPolicyNameAnnotation]; name != "" && l[names.ClusterPropagationPolicyPermanentIDLabel] != "" {
		return ClaimRef{Cluster: true, Name: name}, true
	}
	return ClaimRef{}, false
}

// RefersTo reports whether r names policy p.
func (r ClaimRef) RefersTo(p *Policy) bool {
	return r.Cluster == p.Cluster && r.Namespace == p.Namespace && r.Name == p.Name
}

// SetClaim writes p's claim labels and annotations on obj; a
// PropagationPolicy claim replaces a ClusterPropagationPolicy one.
func SetClaim(obj metav1.Object, p *Policy) {
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	if p.Cluster {
		labels[names.ClusterPropagationPolicyPermanentIDLabel] = p.ID
		annotations[names.ClusterPropagationPolicyNameAnnotation] = p.Name
	} else {
		removeClaimKeys(labels, annotations, true)
		labels[names.PropagationPolicyPermanentIDLabel] = p.ID
		annotations[names.PropagationPolicyNamespaceAnnotation] = p.Namespace
		annotations[names.PropagationPolicyNameAnnotation] = p.Name
	}
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
}

// RemoveClaim strips the PropagationPolicy (cluster=false) or
// ClusterPropagationPolicy claim from obj and reports whether it carried
// any of it. Every removal of a claim, from a template or a member copy of
// one, goes through here.
func RemoveClaim(obj metav1.Object, cluster bool) bool {
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	if !removeClaimKeys(labels, annotations, cluster) {
		return false
	}
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
	return true
}

// claimLabelKeys and claimAnnotationKeys are the keys of each policy
// kind's claim.
func claimLabelKeys(cluster bool) []string {
	if cluster {
		return []string{names.ClusterPropagationPolicyPermanentIDLabel}
	}
	return []string{names.PropagationPolicyPermanentIDLabel}
}

func claimAnnotationKeys(cluster bool) []string {
	if cluster {
		return []string{names.ClusterPropagationPolicyNameAnnotation}
	}
	return []string{names.PropagationPolicyNamespaceAnnotation, names.PropagationPolicyNameAnnotation}
}

// ClaimLabelKeys and ClaimAnnotationKeys are the label and annotation
// keys of both policy kinds' claims, PropagationPolicy's first.
func ClaimLabelKeys() []string { return append(claimLabelKeys(false), claimLabelKeys(true)...) }

// ClaimAnnotationKeys: see ClaimLabelKeys.
func ClaimAnnotationKeys() []string {
	return append(claimAnnotationKeys(false), claimAnnotationKeys(true)...)
}

func removeClaimKeys(labels, annotations map[string]string, cluster bool) bool {
	removed := false
	for _, k := range claimLabelKeys(cluster) {
		if _, ok := labels[k]; ok {
			delete(labels, k)
			removed = true
		}
	}
	for _, k := range claimAnnotationKeys(cluster) {
		if _, ok := annotations[k]; ok {
			delete(annotations, k)
			removed = true
		}
	}
	return removed
}

// Claimed reports whether obj already carries exactly p's claim.
func Claimed(obj metav1.Object, p *Policy) bool {
	l, a := obj.GetLabels(), obj.GetAnnotations()
	if p.Cluster {
		return l[names.ClusterPropagationPolicyPermanentIDLabel] == p.ID && a[names.ClusterPropagationPolicyNameAnnotation] == p.Name
	}
	return l[names.PropagationPolicyPermanentIDLabel] == p.ID && l[names.ClusterPropagationPolicyPermanentIDLabel] == "" &&
		a[names.PropagationPolicyNamespaceAnnotation] == p.Namespace && a[names.PropagationPolicyNameAnnotation] == p.Name
}
