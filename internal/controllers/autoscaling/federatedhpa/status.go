package federatedhpa

import (
	"context"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// writeStatus writes the status when it changed.
func (r *Reconciler) writeStatus(ctx context.Context, fhpa *autoscalingv1alpha1.FederatedHPA, status *autoscalingv2.HorizontalPodAutoscalerStatus) error {
	if apiequality.Semantic.DeepEqual(&fhpa.Status, status) {
		return nil
	}
	updated := fhpa.DeepCopy()
	updated.Status = *status
	if err := r.client.Status().Update(ctx, updated); err != nil {
		r.recorder.Event(fhpa, corev1.EventTypeWarning, EventReasonFailedUpdateStatus, boundedtext.Error(err).Error())
		return fmt.Errorf("update the status of federatedhpa %s/%s: %w", fhpa.Namespace, fhpa.Name, err)
	}
	return nil
}
