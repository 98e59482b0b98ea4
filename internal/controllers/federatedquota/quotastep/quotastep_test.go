package quotastep_test

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/controllers/federatedquota/quotastep"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

var step = quotastep.Step{Action: "Do something to", FailedReason: "DoFailed", SucceededReason: "DoSucceed"}

func TestRunRecordsTheOutcomeOfALiveQuota(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := policyv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		&policyv1alpha1.FederatedResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"}},
		&policyv1alpha1.FederatedResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "deleting", DeletionTimestamp: &now, Finalizers: []string{"keep"}}},
	).Build()
	ctx := context.Background()
	for _, tc := range []struct {
		name, want string
		live       bool
		err        error
	}{
		{name: "q", live: true, want: "Normal DoSucceed Do something to FederatedResourceQuota(ns/q) succeed."},
		{name: "q", live: true, err: errors.New("boom"), want: "Warning DoFailed Do something to FederatedResourceQuota(ns/q) failed: boom"},
		{name: "deleting"},
		{name: "gone"},
	} {
		rec := record.NewFakeRecorder(2)
		ran := false
		live, err := step.Run(ctx, c, rec, client.ObjectKey{Namespace: "ns", Name: tc.name}, func(context.Context, *policyv1alpha1.FederatedResourceQuota) error {
			ran = true
			return tc.err
		})
		if live != tc.live || ran != tc.live || !errors.Is(err, tc.err) {
			t.Errorf("%s: live %v, step ran %v, err %v; want %v, %v, %v", tc.name, live, ran, err, tc.live, tc.live, tc.err)
		}
		var got string
		select {
		case got = <-rec.Events:
		default:
		}
		if got != tc.want {
			t.Errorf("%s: event %q, want %q", tc.name, got, tc.want)
		}
	}
}
