package federatedhpa

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scaleError is a failure with the AbleToScale=False reason and the event
// reason it records.
type scaleError struct {
	condition, event string
	err              error
}

func (e *scaleError) Error() string { return e.err.Error() }

func (e *scaleError) Unwrap() error { return e.err }

func failScale(reason string, err error) error {
	event := reason
	if reason == reasonFailedGetBinding {
		event = "FailedGetBindings"
	}
	return &scaleError{condition: reason, event: event, err: err}
}

// Condition reasons (Kubernetes' HPA and Karmada's).
const (
	reasonFailedGetScale          = "FailedGetScale"
	reasonFailedGetScaleTargetRef = "FailedGetScaleTargetRef"
	reasonFailedGetBinding        = "FailedGetBinding"
	reasonFailedGetTargetClusters = "FailedGetTargetClusters"
	reasonSucceededGetScale       = "SucceededGetScale"
	reasonSucceededRescale        = "SucceededRescale"
	reasonFailedUpdateScale       = "FailedUpdateScale"
	reasonValidMetricFound        = "ValidMetricFound"
	reasonInvalidSelector         = "InvalidSelector"
	reasonAmbiguousSelector       = "AmbiguousSelector"
	reasonInvalidMetricSourceType = "InvalidMetricSourceType"
)

// setCondition updates one condition in place; the transition time moves
// only when the status flips.
func setCondition(status *autoscalingv2.HorizontalPodAutoscalerStatus, t autoscalingv2.HorizontalPodAutoscalerConditionType, s corev1.ConditionStatus, reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for i := range status.Conditions {
		c := &status.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != s {
			c.LastTransitionTime = metav1.Now()
		}
		c.Status, c.Reason, c.Message = s, reason, msg
		return
	}
	status.Conditions = append(status.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{
		Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: metav1.Now(),
	})
}
