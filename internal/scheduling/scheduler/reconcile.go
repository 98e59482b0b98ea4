package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/core"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/metrics"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// outcome is the result of one scheduling run.
type outcome struct {
	result core.Result
	err    error
	// placement is the JSON of spec.placement when scheduling started, for
	// the applied-placement annotation.
	placement string
}

// Reconcile schedules one binding: load, admit, decide, schedule, record.
func (s *Scheduler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	b, err := s.load(ctx, req.NamespacedName)
	if err != nil || b == nil {
		return reconcile.Result{}, err
	}
	log := logf.FromContext(ctx).WithValues("binding", klog.KObj(b.obj))
	ctx = logf.IntoContext(ctx, log)
	if !s.schedulable(ctx, b) {
		return reconcile.Result{}, nil
	}
	clusters, err := s.snapshot(ctx)
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("list clusters to schedule %s: %w", b, err)
	}
	start := time.Now()
	why := decide(b, byName(clusters))
	if why == noTrigger {
		return reconcile.Result{}, s.syncObservedGeneration(ctx, b)
	}
	log.V(1).Info("scheduling binding", "trigger", why)
	out, undo := s.scheduleAndAssume(b, clusters)
	res, err := s.record(ctx, b, out)
	var notWritten *specPatchError
	if errors.As(err, &notWritten) {
		undo()
	}
	recordAttempt(why, start, out.err, res, err)
	return res, err
}

// recordAttempt feeds Karmada's attempt metrics for one scheduling run:
// its result (any scheduling or write error is "error", as Karmada counts
// unschedulable runs) and, when the run is retried, the requeue as a
// ScheduleAttemptFailure.
func recordAttempt(why trigger, start time.Time, scheduleErr error, res reconcile.Result, err error) {
	scheduleType := metrics.ReconcileSchedule
	if why == triggerReplicas {
		scheduleType = metrics.ScaleSchedule
	}
	metrics.BindingScheduled(scheduleType, start, errors.Join(scheduleErr, err))
	if err != nil || res.RequeueAfter > 0 {
		metrics.BindingQueued(metrics.EventScheduleAttemptFailure)
	}
}

// load reads the binding from the cache, overlaid with this controller's
// own writes the cache has not observed yet; nil when it is gone.
func (s *Scheduler) load(ctx context.Context, key types.NamespacedName) (*binding, error) {
	obj := workv1alpha2.NewBindingFor(key)
	if err := s.client.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			s.writes.Forget(key)
			return nil, nil
		}
		return nil, fmt.Errorf("get binding %s: %w", key, err)
	}
	if own, ok := s.writes.Resolve(key, obj.GetResourceVersion()); ok {
		b, _ := wrap(own.DeepCopyObject().(client.Object))
		return b, nil
	}
	b, _ := wrap(obj)
	return b, nil
}

// schedulable re-checks admission (the binding may have changed since it
// was queued) and skips terminating bindings (with a failure event) and
// bindings without a placement.
func (s *Scheduler) schedulable(ctx context.Context, b *binding) bool {
	log := logf.FromContext(ctx)
	switch {
	case !s.admits(b):
		log.V(2).Info("binding is not for this scheduler or is suspended, skipping")
		return false
	case b.obj.GetDeletionTimestamp() != nil:
		s.eventFailed(b, fmt.Errorf("%s is terminating; not scheduling it", b))
		log.V(1).Info("binding is terminating, skipping")
		return false
	case b.spec.Placement == nil:
		log.Info("binding has no placement, skipping")
		return false
	}
	return true
}

// snapshot lists the cached Clusters without copying them; they must not
// be modified.
func (s *Scheduler) snapshot(ctx context.Context) ([]*clusterv1alpha1.Cluster, error) {
	var list clusterv1alpha1.ClusterList
	if err := s.client.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	out := make([]*clusterv1alpha1.Cluster, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

func byName(clusters []*clusterv1alpha1.Cluster) map[string]*clusterv1alpha1.Cluster {
	m := make(map[string]*clusterv1alpha1.Cluster, len(clusters))
	for _, c := range clusters {
		m[c.Name] = c
	}
	return m
}

// schedule runs the pipeline on the binding as it is now.
func (s *Scheduler) schedule(b *binding, clusters []*clusterv1alpha1.Cluster) outcome {
	placement, err := json.Marshal(b.spec.Placement)
	if err != nil {
		return outcome{err: fmt.Errorf("marshal placement of %s: %w", b, err)}
	}
	result, err := s.core.Schedule(b.spec, b.status, clusters)
	return outcome{result: result, err: err, placement: string(placement)}
}
