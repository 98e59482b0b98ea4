package taintmanager

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// evictionKey is one binding to evict from one cluster; an empty
// Namespace names a ClusterResourceBinding.
type evictionKey struct {
	Cluster, Namespace, Name string
}

func (k evictionKey) namespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: k.Namespace, Name: k.Name}
}

// evictFunc evicts one key; a positive duration asks to look again then.
type evictFunc func(ctx context.Context, key evictionKey) (time.Duration, error)

// evictionQueue is one of Karmada's eviction queues: workers that run
// evict, each pausing 1/rate after a successful item, failures retried
// with the larger of 1/rate and the controller's exponential backoff.
type evictionQueue struct {
	name    string
	workers int
	pace    time.Duration
	queue   workqueue.TypedRateLimitingInterface[evictionKey]
	evict   evictFunc
}

func newEvictionQueue(name string, opts Options, evict evictFunc) *evictionQueue {
	pace := 1800 * time.Second
	if opts.EvictionRate > 0 {
		pace = time.Duration(float64(time.Second) / float64(opts.EvictionRate))
	}
	limiter := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[evictionKey](5*time.Millisecond, 1000*time.Second),
		&fixedDelay[evictionKey]{delay: pace},
	)
	return &evictionQueue{
		name: name, workers: opts.Workers, pace: pace, evict: evict,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[evictionKey]{Name: name}),
	}
}

// add queues key now (delay 0) or after delay.
func (q *evictionQueue) add(key evictionKey, delay time.Duration) {
	queued(key, 1)
	if delay <= 0 {
		q.queue.Add(key)
	} else {
		q.queue.AddAfter(key, delay)
	}
	evictionQueueDepth.WithLabelValues(q.name).Set(float64(q.queue.Len()))
}

// Start runs the workers until ctx ends (a manager Runnable; it runs on
// the leader only).
func (q *evictionQueue) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithName(q.name)
	ctx = logr.NewContext(ctx, logger)
	go func() {
		<-ctx.Done()
		q.queue.ShutDown()
	}()
	done := make(chan struct{})
	for range q.workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for q.next(ctx) {
			}
		}()
	}
	for range q.workers {
		<-done
	}
	return nil
}

func (q *evictionQueue) next(ctx context.Context) bool {
	key, shutdown := q.queue.Get()
	if shutdown {
		return false
	}
	evictionQueueDepth.WithLabelValues(q.name).Set(float64(q.queue.Len()))
	defer q.queue.Done(key)
	start := time.Now()
	again, err := q.evict(ctx, key)
	observeEviction(q.name, start, err)
	if err != nil {
		log.FromContext(ctx).Error(err, "eviction failed, retrying", "cluster", klog.KRef("", key.Cluster),
			"binding", klog.KRef(key.Namespace, key.Name))
		q.queue.AddRateLimited(key)
		return true
	}
	q.queue.Forget(key)
	queued(key, -1)
	if again > 0 {
		q.add(key, again)
		return true
	}
	select {
	case <-ctx.Done():
	case <-time.After(q.pace):
	}
	return true
}

// fixedDelay is a rate limiter that always answers delay.
type fixedDelay[T comparable] struct{ delay time.Duration }

func (f *fixedDelay[T]) When(T) time.Duration { return f.delay }
func (f *fixedDelay[T]) Forget(T)             {}
func (f *fixedDelay[T]) NumRequeues(T) int    { return 0 }
