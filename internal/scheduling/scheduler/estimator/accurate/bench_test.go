package accurate

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clientfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/scheduling/estimatorserver"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/core"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/plugins"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// benchMembers are the member counts the benchmark schedules over; the
// servers of the largest are started once and the smaller counts use the
// first of them.
var benchMembers = []int{10, 25, 50}

// startBenchEstimators serves an estimator per cluster (10 nodes of 16 CPU
// and 50 bound pods each, from a fake clientset) over real gRPC on
// loopback, and returns the clusters and an accurate client resolving
// them through ExternalName Services.
func startBenchEstimators(b *testing.B, members int) ([]*clusterv1alpha1.Cluster, *Estimator) {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	ips := loopbackIPs(members + 10)[10:]
	lis, port := listenSamePort(b, ips)
	clusters := make([]*clusterv1alpha1.Cluster, members)
	var services []runtime.Object
	for i := range clusters {
		name := fmt.Sprintf("member-%02d", i)
		clusters[i] = st.Cluster(name, st.Resources("1000", "4000Gi", 10000))
		var objs []runtime.Object
		for n := range 10 {
			rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
			objs = append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("node-", n)}, Status: corev1.NodeStatus{Allocatable: rl}})
			for p := range 5 {
				objs = append(objs, &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d-%d", n, p), Namespace: "default"},
					Spec: corev1.PodSpec{NodeName: fmt.Sprint("node-", n), Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
					}}}},
					Status: corev1.PodStatus{Phase: corev1.PodRunning},
				})
			}
		}
		est := estimatorserver.New(name, fake.NewClientset(objs...))
		if err := est.Start(ctx); err != nil {
			b.Fatal(err)
		}
		srv, err := estimatorserver.NewGRPCServer(est, estimatorserver.TLSFiles{})
		if err != nil {
			b.Fatal(err)
		}
		go func() { _ = srv.Serve(lis[i]) }()
		b.Cleanup(srv.Stop)
		services = append(services, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-system", Name: "karmada-scheduler-estimator-" + name},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: ips[i]},
		})
	}
	opts := *NewOptions()
	opts.Enabled, opts.Port = true, port
	return clusters, New(opts, clientfake.NewClientBuilder().WithRuntimeObjects(services...).Build(), logr.Discard())
}

// BenchmarkScheduleWithEstimators schedules Divided DynamicWeight bindings
// (50-99 replicas of 250m CPU) over 10, 25 and 50 clusters with the
// general estimator only ("off") and with an accurate estimator per
// cluster over loopback gRPC ("on"; every decision asks every cluster's
// estimator concurrently), one decision at a time and with 8 decisions in
// flight (the scheduler's workers).
func BenchmarkScheduleWithEstimators(b *testing.B) {
	all, acc := startBenchEstimators(b, slices.Max(benchMembers))
	specs := make([]*workv1alpha2.ResourceBindingSpec, 64)
	for i := range specs {
		specs[i] = st.CPURequest(st.Spec(int32(50+i%50), st.Dynamic(false)), "250m", "512Mi")
		specs[i].Resource.UID = types.UID(fmt.Sprint("uid-", i))
	}
	for _, members := range benchMembers {
		b.Run(fmt.Sprintf("members-%d", members), func(b *testing.B) {
			benchmarkSchedule(b, all[:members], specs, acc)
		})
	}
}

// benchmarkSchedule runs the four modes over clusters.
func benchmarkSchedule(b *testing.B, clusters []*clusterv1alpha1.Cluster, specs []*workv1alpha2.ResourceBindingSpec, acc *Estimator) {
	for _, mode := range []struct {
		name     string
		batch    []estimator.BatchEstimator
		parallel bool
	}{
		{"off", nil, false},
		{"on", []estimator.BatchEstimator{acc}, false},
		{"off-8-parallel", nil, true},
		{"on-8-parallel", []estimator.BatchEstimator{acc}, true},
	} {
		b.Run(mode.name, func(b *testing.B) {
			s := &core.Scheduler{Plugins: plugins.Default(), Estimator: &estimator.Set{Estimators: []estimator.Estimator{estimator.General{}}, Batch: mode.batch}}
			status := &workv1alpha2.ResourceBindingStatus{}
			b.ReportAllocs()
			cpu := processCPU(b)
			b.ResetTimer()
			if mode.parallel {
				b.SetParallelism(8)
				b.RunParallel(func(pb *testing.PB) {
					for i := 0; pb.Next(); i++ {
						if _, err := s.Schedule(specs[i%len(specs)], status, clusters); err != nil {
							b.Error(err)
							return
						}
					}
				})
			} else {
				for i := 0; b.Loop(); i++ {
					if _, err := s.Schedule(specs[i%len(specs)], status, clusters); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bindings/s")
			// The process's CPU time (scheduler and estimator servers alike)
			// per decision: what bounds the throughput of an idle machine
			// (cores / CPU per decision) when the shared one gives the
			// process only part of the wall time.
			b.ReportMetric(float64((processCPU(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// processCPU is the user and system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
