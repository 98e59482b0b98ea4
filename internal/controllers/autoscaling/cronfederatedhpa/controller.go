package cronfederatedhpa

import (
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/propel-mc/propel/internal/shared/names"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// RBAC: CronFederatedHPAs and their executionHistories.
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=cronfederatedhpas,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=cronfederatedhpas/status,verbs=update

// Reconciler runs the rules of CronFederatedHPAs; its requests are
// CronFederatedHPAs.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
	now      func() time.Time

	mu    sync.Mutex
	armed map[types.NamespacedName]*armedObject
}

// armedObject is what this process remembers of one CronFederatedHPA: the
// target its rules were armed for, and each rule's snapshot and next fire.
type armedObject struct {
	target autoscalingv2.CrossVersionObjectReference
	rules  map[string]*armedRule
}

type armedRule struct {
	rule     autoscalingv1alpha1.CronFederatedHPARule
	schedule *ruleSchedule
	// next is the next fire time; zero while suspended.
	next time.Time
}

// execution is the outcome of one fire of a rule.
type execution struct {
	rule                    string
	scheduled, executed     time.Time
	err                     error
	replicas, minReplicas   *int32
	maxReplicas             *int32
	successLimit, failLimit int
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane (CronFederatedHPA status, scale targets).
	Client client.Client
	// Recorder records the CronFederatedHPA's events (events.go).
	Recorder record.EventRecorder
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler {
	return &Reconciler{client: deps.Client, recorder: deps.Recorder, now: time.Now, armed: map[types.NamespacedName]*armedObject{}}
}

// SetupWithManager registers the controller with mgr; only generation
// changes trigger it (as in Karmada), the rules' fire times requeue it.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.CronFederatedHPAControllerName).
		For(&autoscalingv1alpha1.CronFederatedHPA{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}
