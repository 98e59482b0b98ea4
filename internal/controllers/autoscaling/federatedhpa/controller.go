// Package federatedhpa is Karmada's federatedHPA-controller
// ("federatedHorizontalPodAutoscaler"): it scales a resource template from
// the metrics of its pods in the member clusters the template is scheduled
// to, with Kubernetes' HPA algorithm (calibrated for Duplicated
// placements), behaviours and stabilisation windows (package replicas),
// and writes the template's scale subresource; the usual propagation then
// carries the new count to the members.
//
// Propel reads the members' metrics.k8s.io APIs directly, where Karmada
// reads them through karmada-metrics-adapter on its API server.
package federatedhpa

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa/replicas"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// RBAC: FederatedHPAs and their status; the target template's scale
// subresource (the template itself is read through the detector's rule);
// the target's binding and clusters are read.
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=federatedhpas,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=federatedhpas/status,verbs=update
// +kubebuilder:rbac:groups=core,resources=replicationcontrollers/scale,verbs=get;update
// +kubebuilder:rbac:groups=apps;batch;autoscaling;policy;networking.k8s.io;discovery.k8s.io;storage.k8s.io;scheduling.k8s.io;node.k8s.io;apps.kruise.io;argoproj.io;batch.volcano.sh;flink.apache.org;helm.toolkit.fluxcd.io;kustomize.toolkit.fluxcd.io;source.toolkit.fluxcd.io;kubeflow.org;kyverno.io;ray.io;sparkoperator.k8s.io,resources=*/scale,verbs=get;update
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

// Options are Karmada's --horizontal-pod-autoscaler-* flags and the
// member cache sync timeout.
type Options struct {
	SyncPeriod              time.Duration
	DownscaleStabilization  time.Duration
	Tolerance               float64
	CPUInitializationPeriod time.Duration
	InitialReadinessDelay   time.Duration
	ClusterCacheSyncTimeout time.Duration
}

// Reconciler scales templates from FederatedHPAs; its requests are
// FederatedHPAs.
type Reconciler struct {
	client    client.Client
	recorder  record.EventRecorder
	clients   membercluster.ClientSource
	informers *membercluster.Informers
	opts      Options
	calc      replicas.Calculator
	norm      *replicas.Normalizer

	// mapping resolves a kind on the control plane (Deps.Mapper).
	mapping func(schema.GroupVersionKind) (schema.GroupVersionResource, error)
	// memberMetrics builds a member's metrics clients (fakes in tests).
	memberMetrics func(*membercluster.Member) (*memberMetrics, error)

	mu        sync.Mutex
	selectors map[string]selectorOf
	now       func() time.Time
}

type selectorOf struct {
	namespace string
	selector  labels.Selector
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes FederatedHPA
	// status; it reads target templates live (unstructured objects are
	// not cached) and their scale subresource (internal/controllers/autoscaling/templatescale).
	Client client.Client
	// Mapper resolves a target's kind on the control plane.
	Mapper meta.RESTMapper
	// Recorder records the FederatedHPA's events (events.go).
	Recorder record.EventRecorder
	// Clients builds member clients from Clusters (membercluster.Clients).
	Clients membercluster.ClientSource
	// Informers are the shared member informers of the members' pods.
	Informers *membercluster.Informers
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps, opts Options) *Reconciler {
	mapper := deps.Mapper
	return &Reconciler{
		client: deps.Client, recorder: deps.Recorder,
		clients: deps.Clients, informers: deps.Informers, opts: opts,
		calc:      replicas.Calculator{Tolerance: opts.Tolerance, CPUInitializationPeriod: opts.CPUInitializationPeriod, InitialReadinessDelay: opts.InitialReadinessDelay},
		norm:      &replicas.Normalizer{DownscaleStabilization: opts.DownscaleStabilization},
		selectors: map[string]selectorOf{}, now: time.Now,
		memberMetrics: func(m *membercluster.Member) (*memberMetrics, error) {
			return newMemberMetrics(m, mapper)
		},
		mapping: func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				return schema.GroupVersionResource{}, err
			}
			return m.Resource, nil
		},
	}
}

// SetupWithManager registers the controller with mgr: FederatedHPA
// generation changes; every reconcile requeues itself after the sync
// period.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.FederatedHPAControllerName).
		For(&autoscalingv1alpha1.FederatedHPA{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}
