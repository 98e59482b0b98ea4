package unifiedauth

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

func TestDesiredWorks(t *testing.T) {
	cluster := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "member1"},
		Spec: clusterv1alpha1.ClusterSpec{
			ImpersonatorSecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "karmada-cluster", Name: "member1-impersonator"},
		},
	}
	rules := impersonationRules([]rbacv1.Subject{user("alice")})
	works, err := desiredWorks(cluster, rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(works) != 2 {
		t.Fatalf("want the ClusterRole's and the binding's Works, got %d", len(works))
	}
	for i, kind := range []string{"ClusterRole", "ClusterRoleBinding"} {
		d := works[i]
		if d.Namespace != "karmada-es-member1" || d.Name != names.WorkName(kind, "karmada-impersonator", "") || d.Cluster != "member1" {
			t.Errorf("%s Work = %s (cluster %s)", kind, d.Key(), d.Cluster)
		}
		m := d.Manifest
		if m.GetAPIVersion() != "rbac.authorization.k8s.io/v1" || m.GetKind() != kind || m.GetName() != "karmada-impersonator" || m.GetNamespace() != "" {
			t.Errorf("%s manifest is %s %s %s/%s", kind, m.GetAPIVersion(), m.GetKind(), m.GetNamespace(), m.GetName())
		}
		if l := m.GetLabels(); l["karmada.io/system"] != "true" || l["karmada.io/managed"] != "true" {
			t.Errorf("%s manifest labels = %v", kind, l)
		}
		if a := m.GetAnnotations(); a["work.karmada.io/name"] != d.Name || a["work.karmada.io/namespace"] != d.Namespace {
			t.Errorf("%s manifest annotations = %v", kind, a)
		}
		if _, ok := m.Object["metadata"].(map[string]interface{})["creationTimestamp"]; ok {
			t.Errorf("%s manifest keeps creationTimestamp", kind)
		}
	}
	got, _, _ := unstructured.NestedSlice(works[0].Manifest.Object, "rules")
	if len(got) != 1 || got[0].(map[string]interface{})["resources"].([]interface{})[0] != "users" {
		t.Errorf("ClusterRole rules = %v", got)
	}
	subjects, _, _ := unstructured.NestedSlice(works[1].Manifest.Object, "subjects")
	want := map[string]interface{}{"kind": "ServiceAccount", "namespace": "karmada-cluster", "name": "karmada-impersonator"}
	if len(subjects) != 1 || !equalMaps(subjects[0].(map[string]interface{}), want) {
		t.Errorf("ClusterRoleBinding subjects = %v, want [%v]", subjects, want)
	}
	ref, _, _ := unstructured.NestedStringMap(works[1].Manifest.Object, "roleRef")
	if ref["kind"] != "ClusterRole" || ref["name"] != "karmada-impersonator" || ref["apiGroup"] != "rbac.authorization.k8s.io" {
		t.Errorf("ClusterRoleBinding roleRef = %v", ref)
	}
}

func equalMaps(a, b map[string]interface{}) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
