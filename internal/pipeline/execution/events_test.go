package execution

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// recorded drains a FakeRecorder that includes the involved object.
func recorded(rec *record.FakeRecorder) []string {
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	return got
}

func webApply(op operation, err error) applied {
	return applied{
		ref:      workapply.Ref{GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Namespace: "default", Name: "web"},
		template: &corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"},
		op:       op, err: err,
	}
}

// TestReportRecordsOnWorkAndTemplate: Karmada records SyncSucceed and
// SyncFailed on the Work as well as on each manifest's template; Propel
// records a success only when the sync wrote to the member.
func TestReportRecordsOnWorkAndTemplate(t *testing.T) {
	const onTemplate, onWork = " involvedObject{kind=Deployment,apiVersion=apps/v1}", " involvedObject{kind=Work,apiVersion=work.karmada.io/v1alpha1}"
	for _, tc := range []struct {
		name string
		res  applied
		want []string // reason and object of each event, in order
	}{
		{"created", webApply(opCreated, nil), []string{"Normal SyncSucceed" + onTemplate, "Normal SyncSucceed" + onWork}},
		{"unchanged", webApply(opNone, nil), nil},
		{"refused", webApply(opNone, errors.New("admission webhook denied the request")),
			[]string{"Warning SyncFailed" + onTemplate, "Warning SyncFailed" + onWork}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(4)
			rec.IncludeObject = true
			r := &Reconciler{recorder: rec}
			work := &workv1alpha1.Work{TypeMeta: metav1.TypeMeta{APIVersion: "work.karmada.io/v1alpha1", Kind: "Work"},
				ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1", Name: "web-deployment"}}
			_ = r.report(context.Background(), work, "member1", []applied{tc.res})
			var got []string
			for _, e := range recorded(rec) {
				fields := strings.Fields(e)
				got = append(got, fields[0]+" "+fields[1]+" "+fields[len(fields)-1])
				if strings.HasSuffix(e, onWork) && !strings.Contains(e, "work(karmada-es-member1/web-deployment) to cluster(member1)") {
					t.Errorf("Work event %q does not name the Work and its cluster", e)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDispatchingEvent: WorkDispatching follows every change of the
// Dispatching condition, the first dispatch of a Work included (Karmada
// records "Work is being dispatched to member clusters." then too).
func TestDispatchingEvent(t *testing.T) {
	dispatching := metav1.Condition{Type: workv1alpha1.WorkDispatching, Status: metav1.ConditionTrue,
		Reason: workv1alpha1.WorkDispatchingReason, Message: workv1alpha1.WorkDispatchingMessage}
	suspendedCond := metav1.Condition{Type: workv1alpha1.WorkDispatching, Status: metav1.ConditionFalse,
		Reason: workv1alpha1.WorkSuspendDispatchingReason, Message: workv1alpha1.WorkSuspendDispatchingMessage}
	for _, tc := range []struct {
		name      string
		suspend   bool
		condition *metav1.Condition
		want      string
	}{
		{"first dispatch", false, nil, workv1alpha1.WorkDispatchingMessage},
		{"dispatching again", false, &dispatching, ""},
		{"resumed", false, &suspendedCond, workv1alpha1.WorkDispatchingMessage},
		{"suspended before the first dispatch", true, nil, workv1alpha1.WorkSuspendDispatchingMessage},
		{"suspended", true, &dispatching, workv1alpha1.WorkSuspendDispatchingMessage},
		{"still suspended", true, &suspendedCond, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := &workv1alpha1.Work{Spec: workv1alpha1.WorkSpec{SuspendDispatching: ptr.To(tc.suspend)}}
			if tc.condition != nil {
				work.Status.Conditions = []metav1.Condition{*tc.condition}
			}
			if got := dispatchingEvent(work); got != tc.want {
				t.Errorf("dispatchingEvent = %q, want %q", got, tc.want)
			}
		})
	}
}
