package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// progressOut receives progress lines.
var progressOut = os.Stderr

// observer watches bindings and Works and records when each first reached
// each stage. It uses one watch per kind instead of polling lists: listing
// thousands of Works every second would load the API server it measures.
type observer struct {
	// clusters is how many clusters every binding goes to; 0 when that
	// differs by binding (-placement subset or mixed): then a binding is
	// aggregated once it has the status of every cluster it is scheduled
	// to.
	clusters int

	mu         sync.Mutex
	bound      map[string]time.Time // binding created
	scheduled  map[string]time.Time // binding has target clusters
	aggregated map[string]time.Time // binding has every cluster's status and FullyApplied
	works      map[string]time.Time // Work created
	applied    map[string]time.Time // Work Applied=True
	targets    map[string]int       // binding: how many clusters it is scheduled to
	appliedOf  map[string]int       // binding: how many of its Works are applied
	allApplied map[string]time.Time // binding: as many Works applied as it has clusters
}

func newObserver(clusters int) *observer {
	return &observer{
		clusters: clusters,
		bound:    map[string]time.Time{}, scheduled: map[string]time.Time{}, aggregated: map[string]time.Time{},
		works: map[string]time.Time{}, applied: map[string]time.Time{},
		targets: map[string]int{}, appliedOf: map[string]int{}, allApplied: map[string]time.Time{},
	}
}

// start runs the informers until ctx ends and returns once they synced.
func (o *observer) start(ctx context.Context, cfg *rest.Config) error {
	c, err := cache.New(cfg, cache.Options{Scheme: apis.Scheme, DefaultTransform: cache.TransformStripManagedFields()})
	if err != nil {
		return err
	}
	for _, watched := range []struct {
		obj    client.Object
		record func(obj interface{})
	}{
		{&workv1alpha2.ResourceBinding{}, o.recordBinding},
		{&workv1alpha1.Work{}, o.recordWork},
	} {
		inf, err := c.GetInformer(ctx, watched.obj)
		if err != nil {
			return err
		}
		record := watched.record
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    record,
			UpdateFunc: func(_, obj interface{}) { record(obj) },
		}); err != nil {
			return err
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return fmt.Errorf("observer caches did not sync")
	}
	return nil
}

func (o *observer) recordBinding(obj interface{}) {
	rb, ok := obj.(*workv1alpha2.ResourceBinding)
	if !ok || !strings.HasPrefix(rb.Name, "bench-") {
		return
	}
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	firstSeen(o.bound, rb.Name, now)
	if len(rb.Spec.Clusters) > 0 {
		firstSeen(o.scheduled, rb.Name, now)
	}
	o.targets[rb.Name] = len(rb.Spec.Clusters)
	o.checkAllApplied(rb.Name, now)
	want := o.clusters
	if want == 0 {
		want = len(rb.Spec.Clusters)
	}
	if want > 0 && len(rb.Status.AggregatedStatus) == want && meta.IsStatusConditionTrue(rb.Status.Conditions, workv1alpha2.FullyApplied) {
		firstSeen(o.aggregated, rb.Name, now)
	}
}

// checkAllApplied records when binding's Works are all applied: as many as
// it has target clusters (the Works of a binding are never deleted here).
func (o *observer) checkAllApplied(binding string, now time.Time) {
	if n := o.targets[binding]; n > 0 && o.appliedOf[binding] >= n {
		firstSeen(o.allApplied, binding, now)
	}
}

func (o *observer) recordWork(obj interface{}) {
	w, ok := obj.(*workv1alpha1.Work)
	if !ok || !strings.HasPrefix(w.Name, "bench-") {
		return
	}
	now := time.Now()
	key := w.Namespace + "/" + w.Name
	o.mu.Lock()
	defer o.mu.Unlock()
	firstSeen(o.works, key, now)
	if meta.IsStatusConditionTrue(w.Status.Conditions, workv1alpha1.WorkApplied) {
		if _, seen := o.applied[key]; !seen {
			binding := w.Annotations[workv1alpha2.ResourceBindingNameAnnotation]
			o.appliedOf[binding]++
			o.checkAllApplied(binding, now)
		}
		firstSeen(o.applied, key, now)
	}
}

func firstSeen(m map[string]time.Time, key string, now time.Time) {
	if _, ok := m[key]; !ok {
		m[key] = now
	}
}

// stage is one stage's record: how many objects reached it, and when the
// first and the last did.
type stage struct {
	count       int
	first, last time.Time
}

func stageOf(m map[string]time.Time) stage {
	s := stage{count: len(m)}
	for _, t := range m {
		if s.first.IsZero() || t.Before(s.first) {
			s.first = t
		}
		if t.After(s.last) {
			s.last = t
		}
	}
	return s
}

// rate is objects per second between the first and the last object of the
// stage: the stage's own throughput while it ran.
func (s stage) rate() float64 {
	d := s.last.Sub(s.first).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(s.count-1) / d
}

// snapshot is a consistent copy of all stages.
type snapshot struct {
	bound, scheduled, aggregated, works, applied stage
	// wantWorks is the Works the bindings seen so far are scheduled to:
	// one per binding and target cluster.
	wantWorks int
}

func (o *observer) snapshot() snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := snapshot{
		bound: stageOf(o.bound), scheduled: stageOf(o.scheduled), aggregated: stageOf(o.aggregated),
		works: stageOf(o.works), applied: stageOf(o.applied),
	}
	for _, n := range o.targets {
		s.wantWorks += n
	}
	return s
}

// latencies are, per binding, the seconds from first seen to scheduled
// (the scheduler's latency as a watcher sees it), and from its
// Deployment's creation (created, by binding name) to all its Works
// applied.
func (o *observer) latencies(created map[string]time.Time) (schedule, endToEnd []float64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for name, t := range o.scheduled {
		if b, ok := o.bound[name]; ok {
			schedule = append(schedule, t.Sub(b).Seconds())
		}
	}
	for name, t := range o.allApplied {
		if c, ok := created[name]; ok {
			endToEnd = append(endToEnd, t.Sub(c).Seconds())
		}
	}
	return schedule, endToEnd
}

// waitUntil polls the in-memory record (no API requests) until done says
// so, printing progress.
func (o *observer) waitUntil(ctx context.Context, done func(snapshot) bool) (snapshot, error) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		s := o.snapshot()
		fmt.Fprintf(progressOut, "\rbench: bindings %d, scheduled %d, Works %d, applied %d, aggregated %d   ",
			s.bound.count, s.scheduled.count, s.works.count, s.applied.count, s.aggregated.count)
		if done(s) {
			fmt.Fprintln(progressOut)
			return s, nil
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(progressOut)
			return s, ctx.Err()
		case <-tick.C:
		}
	}
}
