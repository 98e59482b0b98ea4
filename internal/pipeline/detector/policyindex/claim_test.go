package policyindex

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/names"
)

func TestRemoveClaim(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]interface{}{}}
	SetClaim(obj, &Policy{Cluster: true, Name: "cpp", ID: "cpp-id"})
	SetClaim(obj, &Policy{Namespace: "ns", Name: "pp", ID: "pp-id"})
	obj.SetLabels(map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-id", names.ClusterPropagationPolicyPermanentIDLabel: "cpp-id", "app": "web"})
	annotations := obj.GetAnnotations()
	annotations[names.ClusterPropagationPolicyNameAnnotation] = "cpp"
	obj.SetAnnotations(annotations)

	if !RemoveClaim(obj, false) {
		t.Fatal("removing the PropagationPolicy claim reports nothing removed")
	}
	if got := ClaimOf(obj); got != (Claim{Cluster: true, ID: "cpp-id"}) {
		t.Errorf("claim after removing the PropagationPolicy's: %+v, want the ClusterPropagationPolicy's", got)
	}
	if RemoveClaim(obj, false) {
		t.Error("removing an absent claim reports a removal")
	}
	if !RemoveClaim(obj, true) {
		t.Fatal("removing the ClusterPropagationPolicy claim reports nothing removed")
	}
	if l, a := obj.GetLabels(), obj.GetAnnotations(); len(l) != 1 || l["app"] != "web" || len(a) != 0 {
		t.Errorf("labels %v and annotations %v left, want only app=web", l, a)
	}
	if len(ClaimLabelKeys()) != 2 || len(ClaimAnnotationKeys()) != 3 {
		t.Errorf("claim keys %v %v, want both kinds' labels and annotations", ClaimLabelKeys(), ClaimAnnotationKeys())
	}
}
