package membercluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// recordListWatch turns each page of the informer's initial list into
// records as it arrives. The reflector lists in pages (500 objects) but
// gathers every page before it stores any item, so without this the
// whole member's Pods would be decoded at once at startup: the peak, not
// the steady state, would set the memory a member costs. Watch events
// pass through unchanged (the transform turns them into records one at a
// time).
type recordListWatch struct {
	lw     cache.ListerWatcherWithContext
	record func(runtime.Object) (runtime.Object, error)
}

func newRecordListWatch(lw cache.ListerWatcher, record func(runtime.Object) (runtime.Object, error)) *recordListWatch {
	return &recordListWatch{lw: cache.ToListerWatcherWithContext(lw), record: record}
}

// IsWatchListSemanticsUnSupported tells the reflector to list in pages
// rather than stream the initial list as watch events (client-go's
// default since 1.35). A member API server without a watch cache serves
// a streamed list from etcd in chunks of 10,000 objects, which five members
// of 20,000 pods, listed at once, did not finish (their Node and Pod
// informers never synced); a page of 500 is bounded on both ends, and it
// is what the page-by-page records above are for.
func (r *recordListWatch) IsWatchListSemanticsUnSupported() bool { return true }

// ListWithContext returns the page as a metav1.List of records, keeping
// the page's resourceVersion and continue token.
func (r *recordListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	page, err := r.lw.ListWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	lm, err := meta.ListAccessor(page)
	if err != nil {
		return nil, err
	}
	out := &metav1.List{ListMeta: metav1.ListMeta{ResourceVersion: lm.GetResourceVersion(), Continue: lm.GetContinue(), RemainingItemCount: lm.GetRemainingItemCount()}}
	err = meta.EachListItem(page, func(obj runtime.Object) error {
		rec, err := r.record(obj)
		if err != nil {
			return err
		}
		out.Items = append(out.Items, runtime.RawExtension{Object: rec})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WatchWithContext watches unchanged.
func (r *recordListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return r.lw.WatchWithContext(ctx, opts)
}

// List and Watch make it a ListerWatcher; the reflector calls the context
// variants.
func (r *recordListWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return r.ListWithContext(context.TODO(), opts)
}

// Watch is WatchWithContext without a context.
func (r *recordListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return r.WatchWithContext(context.TODO(), opts)
}

func nodeListRecord(obj runtime.Object) (runtime.Object, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return nil, fmt.Errorf("node list holds a %T", obj)
	}
	return NodeRecordOf(n), nil
}

func podListRecord(obj runtime.Object) (runtime.Object, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("pod list holds a %T", obj)
	}
	return PodRecordOf(p), nil
}
