package scheduler

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/names"
)

// emit records ScheduleBindingSucceed or ScheduleBindingFailed on the
// binding and on its resource template.
func (s *Scheduler) emit(b *binding, out outcome) {
	if out.err != nil {
		s.eventFailed(b, out.err)
		return
	}
	msg := fmt.Sprintf("%s Result: %s", names.ScheduleSuccessMessage, targetsString(out.result.Clusters))
	s.recorder.Event(b.obj, corev1.EventTypeNormal, names.EventReasonScheduleBindingSucceed, msg)
	s.recorder.Event(templateRef(b), corev1.EventTypeNormal, names.EventReasonScheduleBindingSucceed, msg)
}

func (s *Scheduler) eventFailed(b *binding, err error) {
	s.recorder.Event(b.obj, corev1.EventTypeWarning, names.EventReasonScheduleBindingFailed, err.Error())
	s.recorder.Event(templateRef(b), corev1.EventTypeWarning, names.EventReasonScheduleBindingFailed, err.Error())
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
