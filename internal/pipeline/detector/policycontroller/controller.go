package policycontroller

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Templates is what the policy controller needs of the template controller.
type Templates interface {
	// Enqueue queues a template (lazy: only Karmada's metadata changed).
	Enqueue(k templatecache.Key, lazy bool)
	// WakeWaiting queues the templates no policy matched so far that p selects.
	WakeWaiting(ctx context.Context, p *policyindex.Policy) error
	// Release removes claim c from a template and its binding.
	Release(ctx context.Context, obj *unstructured.Unstructured, c policyindex.Claim) error
}

// Preemptor is the preemption phase (nil while the PropagationPolicyPreemption gate is off).
type Preemptor interface {
	// Preempt re-claims for p the templates it names from weaker policies.
	Preempt(ctx context.Context, obj client.Object, p *policyindex.Policy) error
	// RequeuePreemptors is the policy update handler that requeues the
	// preemptors a priority decrease lets through.
	RequeuePreemptors(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request])
}

// Reconciler reconciles the policies of one kind.
type Reconciler struct {
	Client       client.Client
	Templates    Templates
	TemplateData *templatecache.Cache
	Preemptor    Preemptor
	// newObject returns an empty policy of the reconciled kind.
	newObject func() client.Object
}

// SetupWithManager adds the PropagationPolicy and ClusterPropagationPolicy
// controllers to mgr.
func SetupWithManager(mgr ctrl.Manager, c client.Client, templates Templates, data *templatecache.Cache, preemptor Preemptor) error {
	for name, newObject := range map[string]func() client.Object{
		"propagation-policy":         func() client.Object { return &policyv1alpha1.PropagationPolicy{} },
		"cluster-propagation-policy": func() client.Object { return &policyv1alpha1.ClusterPropagationPolicy{} },
	} {
		r := &Reconciler{Client: c, Templates: templates, TemplateData: data, Preemptor: preemptor, newObject: newObject}
		if err := r.setup(mgr, name); err != nil {
			return err
		}
	}
	return nil
}

// setup builds the controller of one policy kind. Metadata-only updates
// (such as Propel's own permanent-id write) do not bump the generation;
// deletion does. With preemption on, an update that lowers a policy's
// priority also requeues the preemptors that may now outrank it.
func (r *Reconciler) setup(mgr ctrl.Manager, name string) error {
	b := ctrl.NewControllerManagedBy(mgr).Named(name).
		For(r.newObject(), builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	if r.Preemptor != nil {
		b = b.Watches(r.newObject(), handler.Funcs{UpdateFunc: r.Preemptor.RequeuePreemptors})
	}
	return b.Complete(r)
}
