package policyindex

import (
	"context"
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/recovery"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// RBAC: the policy index watches both kinds of PropagationPolicy.
// +kubebuilder:rbac:groups=policy.karmada.io,resources=propagationpolicies;clusterpropagationpolicies,verbs=get;list;watch

// IDHooks hear about policies' permanent ids as the index sees them; the
// template controller parks templates on them (see its idWaiters).
type IDHooks interface {
	// IDKnown: the policy (by Key) has an id in the index.
	IDKnown(policyKey string)
	// IDLost: the policy has no id (any more).
	IDLost(policyKey string)
	// Forget: the policy is deleted.
	Forget(policyKey string)
}

// Watch keeps ix in line with both policy kinds in informers. synced
// reports when the index is complete: no template may be matched before,
// against a partial view.
func (ix *Index) Watch(ctx context.Context, informers cache.Informers, hooks IDHooks) (synced func() bool, err error) {
	ppSynced, err := watchKind(ctx, informers, &policyv1alpha1.PropagationPolicy{}, ix, hooks, FromPP)
	if err != nil {
		return nil, err
	}
	cppSynced, err := watchKind(ctx, informers, &policyv1alpha1.ClusterPropagationPolicy{}, ix, hooks, FromCPP)
	if err != nil {
		return nil, err
	}
	return func() bool { return ppSynced() && cppSynced() }, nil
}

func watchKind[T client.Object](ctx context.Context, informers cache.Informers, obj T, ix *Index, hooks IDHooks, convert func(T) *Policy) (toolscache.InformerSynced, error) {
	inf, err := informers.GetInformer(ctx, obj)
	if err != nil {
		return nil, fmt.Errorf("watch %T: %w", obj, err)
	}
	upsert := func(o interface{}) {
		if obj, ok := o.(T); ok {
			p := convert(obj)
			ix.Upsert(p)
			if p.ID != "" {
				hooks.IDKnown(p.Key())
			} else {
				hooks.IDLost(p.Key())
			}
		}
	}
	h := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    upsert,
		UpdateFunc: func(_, o interface{}) { upsert(o) },
		DeleteFunc: func(o interface{}) {
			if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			if p, ok := o.(T); ok {
				key := p.GetNamespace() + "/" + p.GetName()
				ix.of(convert(p).Cluster).remove(key)
				hooks.Forget(key)
			}
		},
	}
	logger := log.FromContext(ctx).WithName("policy-index")
	reg, err := inf.AddEventHandler(recovery.Handler(logger, fmt.Sprintf("policy index %T", obj), h, nil))
	if err != nil {
		return nil, fmt.Errorf("watch %T: %w", obj, err)
	}
	return reg.HasSynced, nil
}
