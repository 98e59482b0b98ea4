package eviction

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func rb(clusters ...workv1alpha2.TargetCluster) *workv1alpha2.ResourceBinding {
	b := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app-deployment"}}
	b.Spec.Resource = workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "app"}
	b.Spec.Clusters = clusters
	return b
}

func TestEvictClusterRemovesTargetAndAddsTask(t *testing.T) {
	b := rb(workv1alpha2.TargetCluster{Name: "member1", Replicas: 2}, workv1alpha2.TargetCluster{Name: "member2", Replicas: 1},
		workv1alpha2.TargetCluster{Name: "member3", Replicas: 4})
	ts := Now(time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC))
	opts := Options{
		PurgeMode: policyv1alpha1.PurgeModeGracefully, Producer: workv1alpha2.EvictionProducerTaintManager,
		Reason: workv1alpha2.EvictionReasonTaintUntolerated, Message: "m", GracePeriodSeconds: ptr.To[int32](60),
		SuppressDeletion: ptr.To(false), PreservedLabelState: map[string]string{"a": "1"},
		ClustersBeforeFailover: []string{"member1", "member2", "member3"}, CreationTimestamp: ts,
	}
	if !EvictCluster(b, "member2", opts) {
		t.Fatal("EvictCluster reported no change")
	}
	wantClusters := []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member3", Replicas: 4}}
	if !reflect.DeepEqual(wantClusters, b.Spec.Clusters) {
		t.Errorf("spec.clusters = %+v, want %+v", b.Spec.Clusters, wantClusters)
	}
	want := []workv1alpha2.GracefulEvictionTask{{
		FromCluster: "member2", PurgeMode: policyv1alpha1.PurgeModeGracefully, Replicas: ptr.To[int32](1),
		Reason: "TaintUntolerated", Message: "m", Producer: "TaintManager", GracePeriodSeconds: ptr.To[int32](60),
		SuppressDeletion: ptr.To(false), PreservedLabelState: map[string]string{"a": "1"},
		ClustersBeforeFailover: []string{"member1", "member2", "member3"},
		CreationTimestamp:      &metav1.Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	}}
	if !reflect.DeepEqual(want, b.Spec.GracefulEvictionTasks) {
		t.Errorf("tasks = %+v, want %+v", b.Spec.GracefulEvictionTasks, want)
	}
	// The task owns its values: changing the options afterwards does not
	// reach the binding.
	opts.PreservedLabelState["a"] = "2"
	*opts.GracePeriodSeconds = 1
	opts.ClustersBeforeFailover[0] = "x"
	if b.Spec.GracefulEvictionTasks[0].PreservedLabelState["a"] != "1" || *b.Spec.GracefulEvictionTasks[0].GracePeriodSeconds != 60 ||
		b.Spec.GracefulEvictionTasks[0].ClustersBeforeFailover[0] != "member1" {
		t.Error("the task shares memory with the options")
	}
}

func TestEvictClusterOncePerCluster(t *testing.T) {
	b := rb(workv1alpha2.TargetCluster{Name: "member1", Replicas: 2}, workv1alpha2.TargetCluster{Name: "member2", Replicas: 1})
	opts := Options{PurgeMode: policyv1alpha1.PurgeModeGracefully, Producer: "TaintManager", Reason: "TaintUntolerated"}
	if !EvictCluster(b, "member1", opts) {
		t.Fatal("first eviction reported no change")
	}
	// Evicting again (a retry, a restart): nothing to do.
	if EvictCluster(b, "member1", opts) {
		t.Error("second eviction of a cluster no longer in spec.clusters reported a change")
	}
	// The scheduler put member1 back while its task lives (it should not,
	// ClusterEviction filters it, but a user may): the cluster goes again
	// and no second task appears.
	b.Spec.Clusters = append(b.Spec.Clusters, workv1alpha2.TargetCluster{Name: "member1", Replicas: 5})
	if !EvictCluster(b, "member1", Options{PurgeMode: policyv1alpha1.PurgeModeDirectly, Producer: "other", Reason: "Other"}) {
		t.Error("eviction of a re-added cluster reported no change")
	}
	if len(b.Spec.Clusters) != 1 || b.Spec.Clusters[0].Name != "member2" {
		t.Errorf("spec.clusters = %v, want only member2", b.Spec.Clusters)
	}
	if len(b.Spec.GracefulEvictionTasks) != 1 {
		t.Fatalf("tasks = %v, want exactly one", b.Spec.GracefulEvictionTasks)
	}
	if got := b.Spec.GracefulEvictionTasks[0]; got.PurgeMode != policyv1alpha1.PurgeModeGracefully || *got.Replicas != 2 {
		t.Errorf("the first task was replaced: %+v", got)
	}
}

func TestEvictClusterNotTargeted(t *testing.T) {
	b := rb(workv1alpha2.TargetCluster{Name: "member1", Replicas: 2})
	if EvictCluster(b, "member9", Options{Producer: "p", Reason: "R"}) {
		t.Error("evicting a cluster the binding does not target reported a change")
	}
	if len(b.Spec.Clusters) != 1 || len(b.Spec.GracefulEvictionTasks) != 0 {
		t.Errorf("binding changed: %+v", b.Spec)
	}
}

func TestEvictClusterWithoutReplicasOmitsThem(t *testing.T) {
	crb := &workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "ns-namespace"}}
	crb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "member1"}, {Name: "member2"}}
	if !EvictCluster(crb, "member1", Options{PurgeMode: policyv1alpha1.PurgeModeNever, Producer: "p", Reason: "R", SuppressDeletion: ptr.To(true)}) {
		t.Fatal("no change")
	}
	task := crb.Spec.GracefulEvictionTasks[0]
	if task.Replicas != nil || task.GracePeriodSeconds != nil || task.CreationTimestamp != nil || task.PreservedLabelState != nil ||
		task.ClustersBeforeFailover != nil {
		t.Errorf("unset options or zero replicas appear on the task: %+v", task)
	}
	if task.SuppressDeletion == nil || !*task.SuppressDeletion {
		t.Errorf("suppressDeletion = %v, want true", task.SuppressDeletion)
	}
}

func TestTaskIndex(t *testing.T) {
	spec := &workv1alpha2.ResourceBindingSpec{GracefulEvictionTasks: []workv1alpha2.GracefulEvictionTask{{FromCluster: "a"}, {FromCluster: "b"}}}
	if TaskIndex(spec, "b") != 1 || TaskIndex(spec, "c") != -1 || !HasTask(spec, "a") || HasTask(spec, "c") {
		t.Error("TaskIndex/HasTask disagree with the task list")
	}
}

func TestRecordFailed(t *testing.T) {
	rec := record.NewFakeRecorder(4)
	RecordFailed(rec, rb(), "member1")
	for range 2 {
		if got, want := <-rec.Events, "Warning EvictWorkloadFromClusterFailed Evict from cluster member1 failed."; got != want {
			t.Errorf("event = %q, want %q", got, want)
		}
	}
}
