package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/propel-mc/propel/internal/shared/recovery"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// RBAC: webhook configurations are watched; webhooks configured with
// clientConfig.service are resolved through their Service.
// +kubebuilder:rbac:groups=config.karmada.io,resources=resourceinterpreterwebhookconfigurations,verbs=get;list;watch
// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch

// retryInterval spaces reloads after a failed list.
const retryInterval = time.Second

// Watch keeps the configuration in sync with the
// ResourceInterpreterWebhookConfigurations in c until ctx ends. It returns
// once the event handler is registered; the caller starts c. The first load
// happens when the informer has synced (until then HookEnabled reports
// layer.ErrNotReady); after that every event triggers a relist from the
// cache and a rebuild, bursts of events coalescing into one rebuild.
func (i *Interpreter) Watch(ctx context.Context, c cache.Cache) error {
	inf, err := c.GetInformer(ctx, &configv1alpha1.ResourceInterpreterWebhookConfiguration{}, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("get ResourceInterpreterWebhookConfiguration informer: %w", err)
	}
	kick := make(chan struct{}, 1)
	notify := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	reg, err := inf.AddEventHandler(recovery.Handler(i.log, "interpreter webhook configurations", toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { notify() },
		UpdateFunc: func(any, any) { notify() },
		DeleteFunc: func(any) { notify() },
	}, nil))
	if err != nil {
		return fmt.Errorf("watch ResourceInterpreterWebhookConfigurations: %w", err)
	}
	go i.syncLoop(ctx, c, reg, kick)
	go func() {
		<-ctx.Done()
		if err := inf.RemoveEventHandler(reg); err != nil {
			i.log.Error(err, "cannot remove the event handler of interpreter webhook configurations")
		}
	}()
	return nil
}

func (i *Interpreter) syncLoop(ctx context.Context, c cache.Cache, reg toolscache.ResourceEventHandlerRegistration, kick <-chan struct{}) {
	if !toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return
	}
	for {
		// A panic while loading (a bug, a hostile configuration) is logged
		// and retried like a failed load, not fatal.
		var err error
		if recovery.Run(i.log, "interpreter webhook reload", func() { err = i.reload(ctx, c) }) {
			err = errors.New("reload panicked")
		}
		if err != nil {
			i.log.Error(err, "reload of interpreter webhook configurations failed, retrying")
			select {
			case <-ctx.Done():
				return
			case <-time.After(retryInterval):
				continue
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-kick:
		}
	}
}

func (i *Interpreter) reload(ctx context.Context, c cache.Cache) error {
	list := &configv1alpha1.ResourceInterpreterWebhookConfigurationList{}
	if err := c.List(ctx, list); err != nil {
		return fmt.Errorf("list ResourceInterpreterWebhookConfigurations: %w", err)
	}
	i.LoadConfig(list.Items)
	return nil
}
