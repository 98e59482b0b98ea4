package namespacesync

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// namespaceChanges passes creations, deletions and the updates that change
// the manifest or the skip decision: labels, annotations, deletion.
func namespaceChanges() builder.Predicates {
	return builder.WithPredicates(predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return !maps.Equal(o.GetLabels(), n.GetLabels()) || !maps.Equal(o.GetAnnotations(), n.GetAnnotations()) ||
			!n.GetDeletionTimestamp().IsZero()
	}})
}

// allNamespaces enqueues every namespace (a new cluster needs them all).
func (r *Reconciler) allNamespaces() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []reconcile.Request {
		return r.listNamespaces(ctx)
	})
}

func (r *Reconciler) listNamespaces(ctx context.Context) []reconcile.Request {
	list := &corev1.NamespaceList{}
	if err := r.client.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "list namespaces")
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, ns := range list.Items {
		if !r.skip.skipName(ns.Name) {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: ns.Name}})
		}
	}
	return out
}

func policySource() client.Object { return &policyv1alpha1.ClusterOverridePolicy{} }

// policyNamespaces enqueues the namespaces a ClusterOverridePolicy may
// override (old and new versions on update): those named by its v1
// Namespace selectors, or all when such a selector has no name or the
// policy selects every resource.
func (r *Reconciler) policyNamespaces() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, obj client.Object) []reconcile.Request {
		cop, ok := obj.(*policyv1alpha1.ClusterOverridePolicy)
		if !ok {
			return nil
		}
		named, all := selectedNamespaces(cop.Spec.ResourceSelectors)
		if all {
			return r.listNamespaces(ctx)
		}
		out := make([]reconcile.Request, 0, len(named))
		for _, n := range named {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: n}})
		}
		return out
	})
}

func selectedNamespaces(selectors []policyv1alpha1.ResourceSelector) (named []string, all bool) {
	if len(selectors) == 0 {
		return nil, true
	}
	for _, s := range selectors {
		if s.APIVersion != "v1" || s.Kind != "Namespace" {
			continue
		}
		if s.Name == "" {
			return nil, true
		}
		named = append(named, s.Name)
	}
	return named, false
}

func workSource() client.Object { return &workv1alpha1.Work{} }

// workOwner maps a Work to the Namespace that controls it, so a deleted
// namespace Work is written again.
func workOwner(mgr ctrl.Manager) handler.EventHandler {
	return handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &corev1.Namespace{}, handler.OnlyControllerOwner())
}
