package workstatus

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"

	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// TestRecordHealth: Karmada's e2e suite reads InterpretHealthSucceed on
// the Work of a Service; Propel records it when a written status carries a
// new interpreted health, and only for interpreted health.
func TestRecordHealth(t *testing.T) {
	svc := workapply.Ref{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Service"}, Namespace: "default", Name: "web"}
	cm := workapply.Ref{Ordinal: 1, GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespace: "default", Name: "web"}
	entry := func(ref workapply.Ref, h workv1alpha1.ResourceHealth) workv1alpha1.ManifestStatus {
		return workv1alpha1.ManifestStatus{Identifier: ref.Identifier(), Health: h}
	}
	healthy, unhealthy := workv1alpha1.ResourceHealthy, workv1alpha1.ResourceUnhealthy
	for _, tc := range []struct {
		name        string
		before, now []workv1alpha1.ManifestStatus
		want        []string
	}{
		{"first reflection", nil, []workv1alpha1.ManifestStatus{entry(svc, healthy), entry(cm, healthy)},
			[]string{"Normal InterpretHealthSucceed Interpreted the health of object(Service/default/web) as Healthy."}},
		{"health changed", []workv1alpha1.ManifestStatus{entry(svc, healthy)}, []workv1alpha1.ManifestStatus{entry(svc, unhealthy)},
			[]string{"Normal InterpretHealthSucceed Interpreted the health of object(Service/default/web) as Unhealthy."}},
		{"health unchanged", []workv1alpha1.ManifestStatus{entry(svc, healthy)}, []workv1alpha1.ManifestStatus{entry(svc, healthy)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(4)
			r := &Reconciler{recorder: rec}
			work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1", Name: "web-service"}}
			work.Status.ManifestStatuses = tc.before
			updated := work.DeepCopy()
			updated.Status.ManifestStatuses = tc.now
			// The ConfigMap has no health hook: its Healthy is a default.
			r.recordHealth(work, updated, &reflection{refs: []workapply.Ref{svc, cm}, healthInterpreted: []workapply.Ref{svc}})
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
}
