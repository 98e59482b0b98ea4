package dependencies

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// TestDependencyPolicyConflictEvent: referrers that disagree make the
// attached binding take Overwrite and preservation, and the Warning event
// has Karmada's reason and message.
func TestDependencyPolicyConflictEvent(t *testing.T) {
	referrer := func(name string, cr policyv1alpha1.ConflictResolution, preserve bool) *workv1alpha2.ResourceBinding {
		return &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: workv1alpha2.ResourceBindingSpec{ConflictResolution: cr, PreserveResourcesOnDeletion: ptr.To(preserve)}}
	}
	a := referrer("a-deployment", policyv1alpha1.ConflictOverwrite, false)
	b := referrer("b-deployment", policyv1alpha1.ConflictAbort, true)
	rec := record.NewFakeRecorder(4)
	d := &Distributor{Client: fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(b).Build(), Recorder: rec}
	attached := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm-configmap"},
		Spec: workv1alpha2.ResourceBindingSpec{RequiredBy: []workv1alpha2.BindingSnapshot{
			{Namespace: "default", Name: "a-deployment"}, {Namespace: "default", Name: "b-deployment"}}}}
	d.inheritPolicies(context.Background(), attached, a)
	if attached.Spec.ConflictResolution != policyv1alpha1.ConflictOverwrite || !ptr.Deref(attached.Spec.PreserveResourcesOnDeletion, false) {
		t.Errorf("inherited %q, preserve %v; want Overwrite, true", attached.Spec.ConflictResolution, attached.Spec.PreserveResourcesOnDeletion)
	}
	select {
	case e := <-rec.Events:
		// The whole message, hints included: Karmada's e2e suite matches
		// both hints.
		want := "Warning DependencyPolicyConflict Dependency policy conflict detected: " +
			"ConflictResolution conflicted (Overwrite vs Abort); PreserveResourcesOnDeletion conflicted (true vs false)."
		if e != want {
			t.Errorf("event %q\nwant  %q", e, want)
		}
	default:
		t.Fatal("no DependencyPolicyConflict event")
	}

	agreeing := attached.DeepCopy()
	c := referrer("b-deployment", policyv1alpha1.ConflictOverwrite, false)
	d.Client = fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(c).Build()
	d.inheritPolicies(context.Background(), agreeing, a)
	select {
	case e := <-rec.Events:
		t.Errorf("agreeing referrers recorded %q", e)
	default:
	}
}
