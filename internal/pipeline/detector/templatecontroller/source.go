package templatecontroller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/shared/recovery"
)

// templateSource feeds the controller from the informer of one template
// kind. Its handlers recover from panics (package recovery); the template
// of a callback that panicked is queued anyway, so it is retried by a
// worker, whose panics controller-runtime recovers.
type templateSource struct {
	r        *Reconciler
	gvk      schema.GroupVersionKind
	informer toolscache.SharedIndexInformer
}

func (s *templateSource) String() string { return "templates " + s.gvk.String() }

// Start registers the handlers. The controller's queue is r.queue (see
// NewQueue in SetupWithManager), which Enqueue fills.
func (s *templateSource) Start(ctx context.Context, _ workqueue.TypedRateLimitingInterface[Key]) error {
	r := s.r
	h := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { r.onTemplate(obj, false) },
		UpdateFunc: r.onTemplateUpdate,
		DeleteFunc: r.onTemplateDelete,
	}
	logger := log.FromContext(ctx).WithName(Name)
	if _, err := s.informer.AddEventHandler(recovery.Handler(logger, s.String(), h, func(obj interface{}) { r.onTemplate(obj, false) })); err != nil {
		return fmt.Errorf("watch %s: %w", s.gvk, err)
	}
	return nil
}

func (r *Reconciler) onTemplate(obj interface{}, lazyChange bool) {
	if k, ok := r.templates.KeyOf(obj); ok {
		r.Enqueue(k, lazyChange)
	}
}

// onTemplateUpdate ignores updates that change only status, managedFields
// or resourceVersion, so Propel's own status writes do not loop back, and
// the update its own claim caused. It compares the digests the cache's
// transform computed, without decoding.
func (r *Reconciler) onTemplateUpdate(oldObj, newObj interface{}) {
	o, ok1 := oldObj.(*templatecache.Template)
	n, ok2 := newObj.(*templatecache.Template)
	if !ok1 || !ok2 {
		return
	}
	k, ok := r.templates.KeyOf(n)
	if !ok {
		return
	}
	if r.ownClaims.Observe(k, n.ResourceVersion) {
		return
	}
	if o.Spec == n.Spec {
		return
	}
	r.Enqueue(k, o.User == n.User)
}

func (r *Reconciler) onTemplateDelete(obj interface{}) {
	if k, ok := r.templates.KeyOf(obj); ok {
		r.waiting.remove(k)
		r.ownClaims.Forget(k)
	}
}

// policySource is the controller's source of policy events: it keeps the
// policy index current from the manager's cache, wakes the templates that
// waited for a policy's permanent id, and holds the workers back until the
// index is complete (WaitForSync), so no template is matched against a
// partial view of the policies.
type policySource struct {
	r      *Reconciler
	synced func() bool
}

func (s *policySource) String() string { return "policy index" }

func (s *policySource) Start(ctx context.Context, _ workqueue.TypedRateLimitingInterface[Key]) error {
	synced, err := s.r.policies.Watch(ctx, s.r.informers, idHooks{s.r})
	if err != nil {
		return err
	}
	s.synced = synced
	return nil
}

func (s *policySource) WaitForSync(ctx context.Context) error {
	if !toolscache.WaitForCacheSync(ctx.Done(), s.synced) {
		return fmt.Errorf("policy caches did not sync")
	}
	return nil
}

// idHooks connects the policy index's id events to the id waiters.
type idHooks struct{ r *Reconciler }

func (h idHooks) IDKnown(policy string) {
	for k, lazy := range h.r.idWaiters.idKnown(policy) {
		h.r.Enqueue(k, lazy)
	}
}

func (h idHooks) IDLost(policy string) { h.r.idWaiters.idLost(policy) }

func (h idHooks) Forget(policy string) { h.r.idWaiters.forget(policy) }
