package customization

import (
	"context"
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/propel-mc/propel/internal/shared/recovery"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// RBAC: Lua customizations are watched.
// +kubebuilder:rbac:groups=config.karmada.io,resources=resourceinterpretercustomizations,verbs=get;list;watch

// informerSource is the cache the configuration is rebuilt from.
type informerSource struct {
	cache  cache.Cache
	synced func() bool
}

// Watch feeds the layer from the ResourceInterpreterCustomizations of c
// (which the caller starts): every add, update or delete rebuilds the
// whole configuration from the cache. Until the informer has synced and
// the first load happened, the layer reports layer.ErrNotReady.
func (i *Interpreter) Watch(ctx context.Context, c cache.Cache) error {
	inf, err := c.GetInformer(ctx, &configv1alpha1.ResourceInterpreterCustomization{}, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("get ResourceInterpreterCustomization informer: %w", err)
	}
	// A panic while rebuilding (a bug, a hostile script) is logged; the
	// previous configuration stays and the next event rebuilds again.
	reg, err := inf.AddEventHandler(recovery.Handler(i.log, "resource interpreter customizations", toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { i.resync() },
		UpdateFunc: func(any, any) { i.resync() },
		DeleteFunc: func(any) { i.resync() },
	}, nil))
	if err != nil {
		return fmt.Errorf("watch ResourceInterpreterCustomizations: %w", err)
	}
	i.source.Store(&informerSource{cache: c, synced: reg.HasSynced})
	go func() {
		if toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
			recovery.Run(i.log, "resource interpreter customizations", i.resync)
		}
	}()
	return nil
}

// resync rebuilds the configuration from the informer's cache once it has
// synced. A failed list keeps the previous configuration.
func (i *Interpreter) resync() {
	src := i.source.Load()
	if src == nil || !src.synced() {
		return
	}
	var list configv1alpha1.ResourceInterpreterCustomizationList
	if err := src.cache.List(context.Background(), &list); err != nil {
		i.log.Error(err, "list of resource interpreter customizations failed, keeping the previous configuration")
		return
	}
	i.LoadConfig(list.Items)
}
