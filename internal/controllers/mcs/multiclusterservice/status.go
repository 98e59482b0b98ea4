package multiclusterservice

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// recordApplied sets ServiceApplied and emits the matching event.
func (r *Reconciler) recordApplied(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, syncErr error) error {
	cond := metav1.Condition{
		Type: networkingv1alpha1.ServiceAppliedConditionType, Status: metav1.ConditionTrue,
		Reason: networkingv1alpha1.ServiceAppliedSucceedReason, Message: serviceAppliedMessage,
	}
	if syncErr != nil {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, networkingv1alpha1.ServiceAppliedFailedReason, boundedtext.Error(syncErr).Error()
		r.recorder.Event(mcs, corev1.EventTypeWarning, EventReasonSyncServiceFailed, cond.Message)
	} else {
		r.recorder.Event(mcs, corev1.EventTypeNormal, EventReasonSyncServiceSucceed, serviceAppliedMessage)
	}
	return SetCondition(ctx, r.client, client.ObjectKeyFromObject(mcs), cond)
}

// SetCondition writes one condition of an MCS's status when it changed;
// the dispatch controller writes the other one.
func SetCondition(ctx context.Context, c client.Client, key client.ObjectKey, cond metav1.Condition) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mcs := &networkingv1alpha1.MultiClusterService{}
		if err := c.Get(ctx, key, mcs); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !meta.SetStatusCondition(&mcs.Status.Conditions, cond) {
			return nil
		}
		return c.Status().Update(ctx, mcs)
	})
}
