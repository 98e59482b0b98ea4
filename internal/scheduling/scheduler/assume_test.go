package scheduler

import (
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// placeInParallel decides 200 Aggregated and DynamicWeight bindings of 3
// replicas (1 CPU each) with 8 concurrent workers against clusters whose
// unchanging summaries hold 100 + 60 + 40 replicas (less than the 600
// asked for), as the scheduler's workers do, and returns the replicas
// placed per cluster.
func placeInParallel(t *testing.T, disableAssume bool) map[string]int64 {
	t.Helper()
	s, err := New(Options{DisableAssume: disableAssume})
	if err != nil {
		t.Fatal(err)
	}
	clusters := []*clusterv1alpha1.Cluster{
		st.Cluster("a", st.Resources("100", "1000Gi", 1000)),
		st.Cluster("b", st.Resources("60", "1000Gi", 1000)),
		st.Cluster("c", st.Resources("40", "1000Gi", 1000)),
	}
	jobs := make(chan int)
	var (
		mu     sync.Mutex
		placed = map[string]int64{}
		wg     sync.WaitGroup
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				spec := st.CPURequest(st.Spec(3, st.Dynamic(i%2 == 0)), "1", "1Mi")
				rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("rb-%d", i)}, Spec: *spec}
				b, _ := wrap(rb)
				out, _ := s.scheduleAndAssume(b, clusters)
				// Leave the lock to other workers between decisions, as the
				// API write does in the real loop.
				time.Sleep(time.Millisecond)
				if out.err != nil {
					continue
				}
				mu.Lock()
				for _, tc := range out.result.Clusters {
					placed[tc.Name] += int64(tc.Replicas)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range 200 {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return placed
}

func TestParallelWorkersNeverOvercommit(t *testing.T) {
	capacity := map[string]int64{"a": 100, "b": 60, "c": 40}
	placed := placeInParallel(t, false)
	total := int64(0)
	for name, n := range placed {
		total += n
		if n > capacity[name] {
			t.Errorf("cluster %s got %d replicas, it can run %d", name, n, capacity[name])
		}
	}
	// 200 replicas fit; bindings of 3 leave at most 2 unused per cluster.
	if total < 200-3*2 {
		t.Errorf("only %d replicas placed; the clusters hold 200", total)
	}
	// The same run without the assume cache overcommits: the check above
	// is what the cache provides.
	over := placeInParallel(t, true)
	t.Logf("placed with the assume cache: %v; without: %v (capacity %v)", placed, over, capacity)
	overcommitted := false
	for name, n := range over {
		overcommitted = overcommitted || n > capacity[name]
	}
	if !overcommitted {
		t.Errorf("without the assume cache nothing was overcommitted (%v); the test does not exercise the cache", over)
	}
}

func TestAssumeCacheReleases(t *testing.T) {
	a := newAssumeCache()
	now := time.Unix(1000, 0)
	a.now = func() time.Time { return now }
	key := types.NamespacedName{Namespace: "ns", Name: "rb"}
	spec := st.CPURequest(st.Spec(5, st.Dynamic(true)), "500m", "1Gi")
	undo := a.assume(key, true, spec, st.Targets("a", 3, "b", 2))
	if pods, reqs := a.Reserved("a"); pods != 3 || reqs.Cpu().MilliValue() != 1500 || reqs.Memory().Value() != 3<<30 {
		t.Fatalf("reserved on a: %d pods, %v", pods, reqs)
	}
	undo()
	if pods, _ := a.Reserved("a"); pods != 0 {
		t.Fatalf("undo left %d pods reserved", pods)
	}
	a.assume(key, true, spec, st.Targets("a", 3, "b", 2))
	// A summary change before the member applied the workload keeps it.
	a.summaryChanged("a")
	if pods, _ := a.Reserved("a"); pods != 3 {
		t.Fatalf("summary change before apply released the reservation (%d pods)", pods)
	}
	a.observeApplied(key, &workv1alpha2.ResourceBindingStatus{AggregatedStatus: []workv1alpha2.AggregatedStatusItem{{ClusterName: "a", Applied: true}}})
	a.summaryChanged("a")
	if pods, _ := a.Reserved("a"); pods != 0 {
		t.Fatalf("summary change after apply kept %d pods", pods)
	}
	if pods, _ := a.Reserved("b"); pods != 2 {
		t.Fatalf("b: %d pods, want 2 (not applied there)", pods)
	}
	// Applied but the summary never changes: released after appliedGrace.
	a.observeApplied(key, &workv1alpha2.ResourceBindingStatus{AggregatedStatus: []workv1alpha2.AggregatedStatusItem{{ClusterName: "b", Applied: true}}})
	now = now.Add(appliedGrace + 2*time.Second)
	if pods, _ := a.Reserved("b"); pods != 0 {
		t.Fatalf("b kept %d pods after the grace period", pods)
	}
	a.assume(key, true, spec, st.Targets("a", 1))
	a.forget(key)
	if len(a.byBinding) != 0 || len(a.byCluster) != 0 || len(a.totals) != 0 {
		t.Fatalf("forget left state: %v %v %v", a.byBinding, a.byCluster, a.totals)
	}
}
