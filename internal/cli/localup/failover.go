package localup

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/templatebinding"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The failover scene: nginx-failover runs 2:2 on member2 and member3;
// member3's API server stops, the ClusterTaintPolicy taints it NoExecute,
// the taint manager moves the binding off it and member2 runs all 4
// replicas; member3 comes back and its old copy is removed (purgeMode
// Gracefully). member3 is used because no earlier scene runs there.
const (
	failoverWorkload = "nginx-failover"
	failoverReplicas = 4
	failoverStopped  = "member3"
	failoverSurvivor = "member2"
)

// failoverView is what the scene observes at one moment.
type failoverView struct {
	// ClusterReady: the stopped member's Cluster has Ready=True.
	ClusterReady bool
	// NoExecute: the stopped member carries the not-ready NoExecute taint.
	NoExecute bool
	// Assigned is the binding's spec.clusters.
	Assigned map[string]int32
	// Tasks are the binding's gracefulEvictionTasks.
	Tasks []workv1alpha2.GracefulEvictionTask
	// SurvivorReady counts Ready replicas of the survivor's copy.
	SurvivorReady int32
	// TemplateReady is the template's aggregated status.readyReplicas.
	TemplateReady int32
	// StoppedCopyGone: the stopped member answered NotFound for its copy.
	StoppedCopyGone bool
}

// failoverStage is one bounded wait of the scene, ended by done.
type failoverStage struct {
	waiting string
	done    func(failoverView) string
	timeout time.Duration
}

// afterStopStages follow the member's API server stopping.
var afterStopStages = []failoverStage{
	{"waiting for " + failoverStopped + "'s Cluster to turn not Ready", func(v failoverView) string {
		if v.ClusterReady {
			return ""
		}
		return "Cluster " + failoverStopped + " is not Ready"
	}, time.Minute},
	{"waiting for the ClusterTaintPolicy to taint " + failoverStopped + " NoExecute", func(v failoverView) string {
		if !v.NoExecute {
			return ""
		}
		return "Cluster " + failoverStopped + " tainted " + clusterv1alpha1.TaintClusterNotReady + ":NoExecute"
	}, time.Minute},
	{"waiting for the binding to leave " + failoverStopped, func(v failoverView) string {
		if _, on := v.Assigned[failoverStopped]; on {
			return ""
		}
		msg := fmt.Sprintf("binding left %s: spec.clusters %v", failoverStopped, v.Assigned)
		for _, t := range v.Tasks {
			if t.FromCluster == failoverStopped {
				msg += fmt.Sprintf(", eviction task (producer %s, reason %s, purgeMode %s)", t.Producer, t.Reason, t.PurgeMode)
			}
		}
		return msg
	}, time.Minute},
	{fmt.Sprintf("waiting for %d Ready replicas on %s", failoverReplicas, failoverSurvivor), func(v failoverView) string {
		if v.Assigned[failoverSurvivor] != failoverReplicas || v.SurvivorReady != failoverReplicas || v.TemplateReady != failoverReplicas {
			return ""
		}
		return fmt.Sprintf("%s runs %d/%d Ready replicas, template status readyReplicas %d", failoverSurvivor, v.SurvivorReady, failoverReplicas, v.TemplateReady)
	}, 2 * time.Minute},
	{"waiting for the eviction task to end (new placement healthy)", func(v failoverView) string {
		if len(v.Tasks) > 0 {
			return ""
		}
		return "eviction task removed: the new placement is healthy"
	}, time.Minute},
}

// afterStartStages follow the member's API server starting again.
var afterStartStages = []failoverStage{
	{"waiting for " + failoverStopped + " to be Ready and untainted", func(v failoverView) string {
		if !v.ClusterReady || v.NoExecute {
			return ""
		}
		return "Cluster " + failoverStopped + " is Ready, NoExecute taint lifted"
	}, 2 * time.Minute},
	{"waiting for " + failoverStopped + "'s old copy to be removed", func(v failoverView) string {
		if !v.StoppedCopyGone {
			return ""
		}
		if _, on := v.Assigned[failoverStopped]; on {
			return ""
		}
		return fmt.Sprintf("%s's old copy removed (purgeMode Gracefully); binding stays on %v", failoverStopped, v.Assigned)
	}, 2 * time.Minute},
}

func (d *demo) failover(ctx context.Context) error {
	if err := d.removeFailoverWorkload(ctx); err != nil {
		return err
	}
	for _, f := range []string{"failover/deployment.yaml", "failover/propagationpolicy.yaml"} {
		if err := d.apply(ctx, d.cp, f, nil); err != nil {
			return err
		}
	}
	if err := d.waitAndShow(ctx, "apps/v1", "Deployment", failoverWorkload, map[string]int64{failoverSurvivor: 2, failoverStopped: 2}); err != nil {
		return err
	}
	// The clock starts with the stop request: kube-apiserver refuses new
	// requests as soon as its graceful shutdown begins, and the shutdown
	// itself takes seconds, in which failover is already under way; so the
	// stages are watched while the stop request is still in progress.
	start := time.Now()
	fmt.Fprintf(d.out, "stopping %s's API server\n", failoverStopped)
	type stopResult struct {
		err  error
		took time.Duration
	}
	stopped := make(chan stopResult, 1)
	go func() {
		err := memberAPIServer(ctx, d.dir, failoverStopped, "stop")
		stopped <- stopResult{err, time.Since(start)}
	}()
	down := true
	defer func() {
		if down { // leave the environment whole when a wait failed
			<-stopped
			_ = memberAPIServer(context.Background(), d.dir, failoverStopped, "start")
		}
	}()
	stagesErr := d.runStages(ctx, start, afterStopStages)
	r := <-stopped
	stopped <- r // for the deferred restart
	if r.err != nil {
		return r.err
	}
	fmt.Fprintf(d.out, "[%4.0fs] %s's API server has exited (it refused new requests from the start of its shutdown)\n", r.took.Seconds(), failoverStopped)
	if stagesErr != nil {
		return stagesErr
	}
	if err := memberAPIServer(ctx, d.dir, failoverStopped, "start"); err != nil {
		return err
	}
	down = false
	fmt.Fprintf(d.out, "[%4.0fs] started %s's API server again\n", time.Since(start).Seconds(), failoverStopped)
	if err := d.runStages(ctx, start, afterStartStages); err != nil {
		return err
	}
	return d.show(ctx, "apps/v1", "Deployment", failoverWorkload)
}

// removeFailoverWorkload deletes what an earlier run of the scene left
// (its workload stays on the survivor alone: nothing moves it back) and
// waits until the template and its binding are gone, so that the scene
// starts from its 2:2 placement every time.
func (d *demo) removeFailoverWorkload(ctx context.Context) error {
	key := client.ObjectKey{Namespace: "default", Name: failoverWorkload}
	err := d.cp.Delete(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete the earlier run's Deployment %s: %w", key, err)
	}
	fmt.Fprintf(d.out, "deleted the earlier run's Deployment %s\n", key.Name)
	bindingKey := templatebinding.Key(key.Namespace, "Deployment", key.Name)
	return wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		errT := d.cp.Get(ctx, key, &appsv1.Deployment{})
		errB := d.cp.Get(ctx, bindingKey, &workv1alpha2.ResourceBinding{})
		return apierrors.IsNotFound(errT) && apierrors.IsNotFound(errB), nil
	})
}

// runStages waits for each stage in turn and prints when it is reached,
// counted from start.
func (d *demo) runStages(ctx context.Context, start time.Time, stages []failoverStage) error {
	for _, s := range stages {
		var msg string
		err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, s.timeout, true, func(ctx context.Context) (bool, error) {
			msg = s.done(d.observeFailover(ctx))
			return msg != "", nil
		})
		if err != nil {
			return fmt.Errorf("timed out after %v %s (see propel-controller-manager.log in %s)", s.timeout, s.waiting, filepath.Join(d.dir, "logs"))
		}
		fmt.Fprintf(d.out, "[%4.0fs] %s\n", time.Since(start).Seconds(), msg)
	}
	return nil
}

// observeFailover reads what the stages look at; what cannot be read
// (a stopped member) is left at its zero value.
func (d *demo) observeFailover(ctx context.Context) failoverView {
	var v failoverView
	c := &clusterv1alpha1.Cluster{}
	if err := d.cp.Get(ctx, client.ObjectKey{Name: failoverStopped}, c); err == nil {
		v.ClusterReady = meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
		for _, t := range c.Spec.Taints {
			if t.Key == clusterv1alpha1.TaintClusterNotReady && t.Effect == corev1.TaintEffectNoExecute {
				v.NoExecute = true
			}
		}
	}
	rb := &workv1alpha2.ResourceBinding{}
	if err := d.cp.Get(ctx, templatebinding.Key("default", "Deployment", failoverWorkload), rb); err == nil {
		v.Assigned = map[string]int32{}
		for _, tc := range rb.Spec.Clusters {
			v.Assigned[tc.Name] = tc.Replicas
		}
		v.Tasks = rb.Spec.GracefulEvictionTasks
	}
	tmpl := &appsv1.Deployment{}
	if err := d.cp.Get(ctx, client.ObjectKey{Namespace: "default", Name: failoverWorkload}, tmpl); err == nil {
		v.TemplateReady = tmpl.Status.ReadyReplicas
	}
	dep := &appsv1.Deployment{}
	if err := d.members[failoverSurvivor].Get(ctx, client.ObjectKey{Namespace: "default", Name: failoverWorkload}, dep); err == nil {
		v.SurvivorReady = dep.Status.ReadyReplicas
	}
	err := d.members[failoverStopped].Get(ctx, client.ObjectKey{Namespace: "default", Name: failoverWorkload}, &appsv1.Deployment{})
	v.StoppedCopyGone = apierrors.IsNotFound(err)
	return v
}
