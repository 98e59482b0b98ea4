package enforcement

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: overall and overallUsed from ResourceBindings (status update), also
// by the scheduler's admission check, which also lists
// ValidatingWebhookConfigurations (the role's read-everything rule; the
// role grants nothing in admissionregistration.k8s.io by name).
// +kubebuilder:rbac:groups=policy.karmada.io,resources=federatedresourcequotas,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy.karmada.io,resources=federatedresourcequotas/status,verbs=update
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings,verbs=get;list;watch

// Reconciler recomputes one quota's overall usage; its requests are
// quotas.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
	opts     Options
}

// Options tune the controller.
type Options struct {
	// SyncPeriod is --federated-resource-quota-sync-period: every quota is
	// recomputed this often, correcting charges the admission check made
	// for writes that then failed. It must be > 0 (SetupWithManager).
	SyncPeriod time.Duration
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
	// Recorder records the quota's events (events.go).
	Recorder record.EventRecorder
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps, opts Options) *Reconciler {
	return &Reconciler{client: deps.Client, recorder: deps.Recorder, opts: opts}
}

// SetupWithManager registers the controller with mgr: quota creations and
// changes of spec.overall, ResourceBinding deletions (every quota of the
// namespace), and the periodic recomputation.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	if r.opts.SyncPeriod <= 0 {
		return fmt.Errorf("--federated-resource-quota-sync-period must be > 0, got %s", r.opts.SyncPeriod)
	}
	return builder.ControllerManagedBy(mgr).Named(names.FederatedResourceQuotaEnforcementControllerName).
		For(&policyv1alpha1.FederatedResourceQuota{}, builder.WithPredicates(overallChanged())).
		Watches(&workv1alpha2.ResourceBinding{}, r.quotasOfNamespace(), builder.WithPredicates(eventfilter.Only(eventfilter.Deletes))).
		Complete(r)
}
