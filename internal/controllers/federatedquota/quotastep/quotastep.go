// Package quotastep is what the FederatedResourceQuota controllers
// (enforcement, status, syncer) share around their one step on a quota:
// reading the live quota and recording the step's outcome as Karmada's
// quota controllers do, a Warning event naming the error or a Normal event
// saying it succeeded.
package quotastep

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/liveobject"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Step names a controller's step on a quota for its events.
type Step struct {
	// Action begins the events' message: "<Action>
	// FederatedResourceQuota(<namespace>/<name>) failed: <error>" or
	// "... succeed.".
	Action string
	// FailedReason and SucceededReason are the events' reasons.
	FailedReason, SucceededReason string
}

// Run reads the quota at key and, when it exists and is not being deleted,
// does the step on it and records the outcome. It reports whether the
// quota was live, and the error of the read or of the step.
func (s Step) Run(ctx context.Context, c client.Client, rec record.EventRecorder, key client.ObjectKey,
	do func(context.Context, *policyv1alpha1.FederatedResourceQuota) error) (bool, error) {
	frq := &policyv1alpha1.FederatedResourceQuota{}
	if live, err := liveobject.Get(ctx, c, key, frq); !live {
		return false, err
	}
	err := do(ctx, frq)
	s.Record(rec, frq, err)
	return true, err
}

// Record records err, the outcome of the step on frq, as an event.
func (s Step) Record(rec record.EventRecorder, frq *policyv1alpha1.FederatedResourceQuota, err error) {
	if err != nil {
		rec.Eventf(frq, corev1.EventTypeWarning, s.FailedReason, "%s FederatedResourceQuota(%s/%s) failed: %v", s.Action, frq.Namespace, frq.Name, boundedtext.Error(err))
		return
	}
	rec.Eventf(frq, corev1.EventTypeNormal, s.SucceededReason, "%s FederatedResourceQuota(%s/%s) succeed.", s.Action, frq.Namespace, frq.Name)
}
