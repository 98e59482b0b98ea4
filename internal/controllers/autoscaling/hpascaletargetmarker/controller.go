// Package hpascaletargetmarker is Karmada's hpa-scale-target-marker
// ("hpaScaleTargetMarker", off by default): when a native
// HorizontalPodAutoscaler is propagated to the members and scales the
// workload there, the workload's template gets the label
// resourcetemplate.karmada.io/retain-replicas=true, so that the member
// replicas are kept (the Deployment Retain rule) instead of overwritten
// with the template's; the label goes when the HPA stops targeting it.
package hpascaletargetmarker

import (
	"context"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/propel-mc/propel/internal/shared/names"
)

// RBAC: HPAs are watched; their targets get the retain-replicas label
// (a patch; targets in the apps group).
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;replicasets,verbs=patch

// mark asks for the label to be added to (or removed from) one target.
type mark struct {
	Namespace, APIVersion, Kind, Name string
	Add                               bool
}

// Reconciler labels and unlabels HPA scale targets; its requests are marks.
type Reconciler struct {
	client client.Client
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler { return &Reconciler{client: deps.Client} }

// SetupWithManager registers the controller with mgr, fed by the HPAs of
// the control plane.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.TypedControllerManagedBy[mark](mgr).Named(names.HPAScaleTargetMarkerControllerName).
		WatchesRawSource(source.TypedKind(mgr.GetCache(), &autoscalingv2.HorizontalPodAutoscaler{}, marks())).
		Complete(r)
}

func targetOf(hpa *autoscalingv2.HorizontalPodAutoscaler, add bool) mark {
	ref := hpa.Spec.ScaleTargetRef
	return mark{Namespace: hpa.Namespace, APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, Add: add}
}

// propagated reports whether a policy has claimed the HPA.
func propagated(hpa *autoscalingv2.HorizontalPodAutoscaler) bool {
	l := hpa.Labels
	return l[names.PropagationPolicyPermanentIDLabel] != "" || l[names.ClusterPropagationPolicyPermanentIDLabel] != ""
}

// marks turns HPA events into marks: a propagated HPA's target is
// labelled; a target the HPA leaves (scaleTargetRef changed, HPA deleted)
// is unlabelled.
func marks() handler.TypedEventHandler[*autoscalingv2.HorizontalPodAutoscaler, mark] {
	type queue = workqueue.TypedRateLimitingInterface[mark]
	return handler.TypedFuncs[*autoscalingv2.HorizontalPodAutoscaler, mark]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[*autoscalingv2.HorizontalPodAutoscaler], q queue) {
			if propagated(e.Object) {
				q.Add(targetOf(e.Object, true))
			}
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[*autoscalingv2.HorizontalPodAutoscaler], q queue) {
			if e.ObjectOld.Spec.ScaleTargetRef != e.ObjectNew.Spec.ScaleTargetRef {
				q.Add(targetOf(e.ObjectOld, false))
			}
			if propagated(e.ObjectNew) {
				q.Add(targetOf(e.ObjectNew, true))
			}
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[*autoscalingv2.HorizontalPodAutoscaler], q queue) {
			q.Add(targetOf(e.Object, false))
		},
	}
}

// Reconcile adds or removes the retain-replicas label on the target; a
// target that does not exist needs nothing.
func (r *Reconciler) Reconcile(ctx context.Context, m mark) (reconcile.Result, error) {
	gv, err := schema.ParseGroupVersion(m.APIVersion)
	if err != nil {
		return reconcile.Result{}, reconcile.TerminalError(fmt.Errorf("scale target apiVersion %q: %w", m.APIVersion, err))
	}
	target := &unstructured.Unstructured{}
	target.SetGroupVersionKind(gv.WithKind(m.Kind))
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Name}, target); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	value, has := target.GetLabels()[names.RetainReplicasLabel]
	var patch []byte
	switch {
	case m.Add && value != "true":
		patch = fmt.Appendf(nil, `{"metadata":{"labels":{%q:"true"}}}`, names.RetainReplicasLabel)
	case !m.Add && has:
		patch = fmt.Appendf(nil, `{"metadata":{"labels":{%q:null}}}`, names.RetainReplicasLabel)
	default:
		return reconcile.Result{}, nil
	}
	err = r.client.Patch(ctx, target, client.RawPatch(types.MergePatchType, patch))
	if err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("label %s %s/%s: %w", m.Kind, m.Namespace, m.Name, err)
	}
	return reconcile.Result{}, nil
}
