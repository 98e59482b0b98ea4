package status

import (
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/controllers/federatedquota/syncer"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: FederatedResourceQuota status from its Works' status.
// +kubebuilder:rbac:groups=policy.karmada.io,resources=federatedresourcequotas,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy.karmada.io,resources=federatedresourcequotas/status,verbs=update
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch

// Reconciler aggregates one FederatedResourceQuota's member statuses; its
// requests are quotas.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
	opts     Options
}

// Options tune the controller.
type Options struct {
	// Enforcement is the FederatedQuotaEnforcement gate: when on, only
	// aggregatedStatus is written here.
	Enforcement bool
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

// SetupWithManager registers the controller with mgr: every quota event,
// and status changes and deletions of Works carrying both quota labels.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.FederatedResourceQuotaStatusControllerName).
		For(&policyv1alpha1.FederatedResourceQuota{}).
		Watches(&workv1alpha1.Work{}, handler.EnqueueRequestsFromMapFunc(syncer.QuotaOfWork), builder.WithPredicates(quotaWorkStatusChanged())).
		Complete(r)
}
