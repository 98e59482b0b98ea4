package scheduler

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Event reasons of the scheduler (Karmada's strings); the event source
// component is the scheduler name.
const (
	// EventReasonScheduleBindingSucceed is recorded on a binding and its
	// template when scheduling succeeded.
	EventReasonScheduleBindingSucceed = "ScheduleBindingSucceed"
	// EventReasonScheduleBindingFailed is recorded on a binding and its
	// template when scheduling failed.
	EventReasonScheduleBindingFailed = "ScheduleBindingFailed"
)

// emit records ScheduleBindingSucceed or ScheduleBindingFailed on the
// binding and on its resource template.
func (s *Scheduler) emit(b *binding, out outcome) {
	if out.err != nil {
		s.eventFailed(b, out.err)
		return
	}
	msg := fmt.Sprintf("%s Result: %s", workv1alpha2.BindingScheduleSuccessMessage, targetsString(out.result.Clusters))
	s.recorder.Event(b.obj, corev1.EventTypeNormal, EventReasonScheduleBindingSucceed, msg)
	s.recorder.Event(templateRef(b), corev1.EventTypeNormal, EventReasonScheduleBindingSucceed, msg)
}

func (s *Scheduler) eventFailed(b *binding, err error) {
	s.recorder.Event(b.obj, corev1.EventTypeWarning, EventReasonScheduleBindingFailed, err.Error())
	s.recorder.Event(templateRef(b), corev1.EventTypeWarning, EventReasonScheduleBindingFailed, err.Error())
}

// templateRef refers to the binding's resource template.
func templateRef(b *binding) *corev1.ObjectReference {
	r := b.spec.Resource
	return &corev1.ObjectReference{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: r.UID}
}

// targetsString is Karmada's "{c1:3, c2:2}".
func targetsString(tcs []workv1alpha2.TargetCluster) string {
	parts := make([]string, len(tcs))
	for i, tc := range tcs {
		parts[i] = fmt.Sprintf("%s:%d", tc.Name, tc.Replicas)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
