package syncer

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// TestDesiredWork checks the Work of Karmada's worked example: name,
// namespace, labels, finalizer and a ResourceQuota manifest with the
// cluster's hard limits and nothing of the quota's own metadata.
func TestDesiredWork(t *testing.T) {
	frq := &policyv1alpha1.FederatedResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "team-quota", UID: "frq-uid", ResourceVersion: "7"}}
	a := policyv1alpha1.StaticClusterAssignment{ClusterName: "member1", Hard: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}}
	d, err := desiredWork(frq, a)
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.NewWork()
	if err != nil {
		t.Fatal(err)
	}
	if w.Namespace != "karmada-es-member1" || w.Name != "team-quota-cd9c774d" {
		t.Errorf("Work %s/%s, want karmada-es-member1/team-quota-cd9c774d", w.Namespace, w.Name)
	}
	if w.Labels[names.FederatedResourceQuotaNamespaceLabel] != "team-a" || w.Labels[names.FederatedResourceQuotaNameLabel] != "team-quota" {
		t.Errorf("Work labels %v", w.Labels)
	}
	if len(w.Finalizers) != 1 || w.Finalizers[0] != names.ExecutionControllerFinalizer {
		t.Errorf("finalizers %v", w.Finalizers)
	}
	if w.Spec.SuspendDispatching == nil || *w.Spec.SuspendDispatching {
		t.Error("a quota's Work must not be suspended")
	}
	var m struct {
		APIVersion, Kind string
		Metadata         metav1.ObjectMeta
		Spec             corev1.ResourceQuotaSpec
	}
	if err := json.Unmarshal(w.Spec.Workload.Manifests[0].Raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.APIVersion != "v1" || m.Kind != "ResourceQuota" || m.Metadata.Namespace != "team-a" || m.Metadata.Name != "team-quota" {
		t.Errorf("manifest %s %s %s/%s", m.APIVersion, m.Kind, m.Metadata.Namespace, m.Metadata.Name)
	}
	if m.Metadata.UID != "" || m.Metadata.ResourceVersion != "" {
		t.Errorf("manifest carries the quota's uid or resourceVersion: %+v", m.Metadata)
	}
	if cpu := m.Spec.Hard[corev1.ResourceCPU]; cpu.Cmp(resource.MustParse("4")) != 0 || len(m.Spec.Hard) != 2 {
		t.Errorf("hard %v, want member1's assignment", m.Spec.Hard)
	}
	if m.Metadata.Labels[names.ManagedLabel] != names.TrueValue || m.Metadata.Annotations[names.WorkNameAnnotation] != "team-quota-cd9c774d" {
		t.Errorf("manifest lacks the Work writer's label and annotations: %v %v", m.Metadata.Labels, m.Metadata.Annotations)
	}
}
