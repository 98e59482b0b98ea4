package syncer

import (
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: static assignments become ResourceQuota Works (written through
// workwriter, deleted here).
// +kubebuilder:rbac:groups=policy.karmada.io,resources=federatedresourcequotas,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update;delete

// Reconciler syncs one FederatedResourceQuota's Works; its requests are
// quotas.
type Reconciler struct {
	client   client.Client
	reader   client.Reader
	recorder record.EventRecorder
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
	// APIReader reads Works past the cache when writing them (workwriter).
	APIReader client.Reader
	// Recorder records the quota's events (events.go).
	Recorder record.EventRecorder
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler {
	return &Reconciler{client: deps.Client, reader: deps.APIReader, recorder: deps.Recorder}
}

// SetupWithManager registers the controller with mgr: quota creations,
// deletions and changes of staticAssignments, new Clusters (every quota
// assigning to them), and Works carrying the quota labels as they appear
// (including the initial list), so that the Works of a quota deleted while
// the controller was down are removed at start-up; Karmada has no
// finalizer and leaves them behind.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.FederatedResourceQuotaSyncControllerName).
		For(&policyv1alpha1.FederatedResourceQuota{}, builder.WithPredicates(assignmentsChanged())).
		Watches(&clusterv1alpha1.Cluster{}, r.quotasAssigningTo(), builder.WithPredicates(eventfilter.Only(eventfilter.Creates))).
		Watches(&workv1alpha1.Work{}, handler.EnqueueRequestsFromMapFunc(QuotaOfWork), builder.WithPredicates(eventfilter.Only(eventfilter.Creates))).
		Complete(r)
}
