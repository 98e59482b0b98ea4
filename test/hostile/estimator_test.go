package hostile

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/propel-mc/propel/internal/scheduling/estimatorserver"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/service"
)

// estimatorConn serves the estimator of cluster m1 over nodes on loopback
// (plain text, the real gRPC server with extra options) and returns one
// client connection to it.
func estimatorConn(t *testing.T, nodes []kruntime.Object, extra ...grpc.ServerOption) *grpc.ClientConn {
	t.Helper()
	est := estimatorserver.New("m1", fake.NewClientset(nodes...))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := est.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := estimatorserver.NewGRPCServer(est, estimatorserver.TLSFiles{}, extra...)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(estimatorwire.Codec{}), grpc.MaxCallSendMsgSize(8<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// The probes send estimatorwire.Encoded requests: their message is
// encoded once, outside what they measure, and may hold bytes no
// well-behaved client writes.

// amplifyingRequest is a MaxAvailableComponentSetsRequest just under the
// 4 MiB message limit made of assumed workloads of 128 components, each 10
// bytes on the wire (an empty node claim and one resource entry with an
// empty name and no value) that decode to a Component, its requirements, a
// NodeClaim and a map: 418,432 components where the estimator takes 4,096.
func amplifyingRequest() estimatorwire.Encoded {
	// components[] { replicaRequirements { nodeClaim {} resourceRequestBytes { key "" } } }
	component := []byte{0x12, 0x08, 0x12, 0x06, 0x0a, 0x00, 0x22, 0x02, 0x0a, 0x00}
	workload := bytes.Repeat(component, 128)
	req, _ := estimatorwire.Codec{}.Marshal(&pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Components: []*pb.Component{{Name: "c", Replicas: 1}}})
	one := protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), workload)
	for len(req)+len(one) <= estimatorwire.MaxMessageSize {
		req = append(req, one...)
	}
	return req
}

// memoryWatch samples the heap in use every millisecond while f runs and
// returns its peak growth and what f allocated in all.
func memoryWatch(f func()) (peak, total uint64) {
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var top atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > top.Load() {
				top.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-sampled
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if top.Load() > before.HeapAlloc {
		peak = top.Load() - before.HeapAlloc
	}
	return peak, after.TotalAlloc - before.TotalAlloc
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestEstimatorAmplifyingRequest: a 4 MB component-set request whose
// assumed workloads hold 418,432 components used to be decoded in full
// (296 MiB) before the server counted them; it is now refused while
// decoding, having allocated little beyond the message itself.
func TestEstimatorAmplifyingRequest(t *testing.T) {
	conn := estimatorConn(t, nil)
	req := amplifyingRequest()
	var res pb.MaxAvailableComponentSetsResponse
	var err error
	start := time.Now()
	peak, total := memoryWatch(func() {
		within(t, func() {
			err = conn.Invoke(context.Background(), service.Estimator_MaxAvailableComponentSets_FullMethodName, req, &res)
		})
	})
	t.Logf("%d bytes: took %v, heap peak +%d MiB, allocated %d MiB", len(req), time.Since(start), peak>>20, total>>20)
	wantErr(t, err, "components", "4096")
	if peak > 64<<20 || total > 128<<20 {
		t.Fatalf("heap peak +%d MiB, allocated %d MiB; want at most 64 and 128", peak>>20, total>>20)
	}
	// The server survives and answers the next call.
	ok := &pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Components: []*pb.Component{{Name: "c", Replicas: 1}}}
	if err := conn.Invoke(context.Background(), service.Estimator_MaxAvailableComponentSets_FullMethodName, ok, &res); err != nil {
		t.Fatalf("next call: %v", err)
	}
}

// TestEstimatorConcurrentAmplifyingRequests: those requests at once over
// one connection used to be decoded side by side (1.1 GiB of heap with 4
// of them, 1.9 GiB with 8). The server now holds at most
// MaxConcurrentRequests at a time and refuses the others with
// ResourceExhausted before reading them.
func TestEstimatorConcurrentAmplifyingRequests(t *testing.T) {
	const concurrent = estimatorserver.MaxConcurrentRequests + 8
	conn := estimatorConn(t, nil)
	req := amplifyingRequest()
	errs := make([]error, concurrent)
	start := time.Now()
	peak, total := memoryWatch(func() {
		within(t, func() {
			var wg sync.WaitGroup
			for i := range concurrent {
				wg.Go(func() {
					var res pb.MaxAvailableComponentSetsResponse
					errs[i] = conn.Invoke(context.Background(), service.Estimator_MaxAvailableComponentSets_FullMethodName, req, &res)
				})
			}
			wg.Wait()
		})
	})
	t.Logf("%d × %d bytes: took %v, heap peak +%d MiB, allocated %d MiB", concurrent, len(req), time.Since(start), peak>>20, total>>20)
	refused := 0
	for i, err := range errs {
		if status.Code(err) == codes.ResourceExhausted {
			refused++
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "4096") {
			t.Errorf("request %d: %v, want the components limit or ResourceExhausted", i, err)
		}
	}
	t.Logf("%d refused with ResourceExhausted", refused)
	if peak > 256<<20 {
		t.Fatalf("heap peak +%d MiB; want at most 256", peak>>20)
	}
}

// deadlineCluster is 1,000 nodes with a NoSchedule taint and 30 labels.
func deadlineCluster() []kruntime.Object {
	labels := map[string]string{}
	for i := range 30 {
		labels[fmt.Sprintf("label-%d", i)] = "v"
	}
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("256Gi"), corev1.ResourcePods: resource.MustParse("110")}
	nodes := make([]kruntime.Object, 0, 1000)
	for i := range 1000 {
		nodes = append(nodes, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%04d", i), Labels: labels},
			Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}},
			Status:     corev1.NodeStatus{Allocatable: rl},
		})
	}
	return nodes
}

// deadlineRequest is a legal component-set request of 128 components,
// each tolerating the nodes' taint with the last of 60 tolerations and
// requiring the 30 labels: every node fits each component after a full
// scan of both lists.
func deadlineRequest() estimatorwire.Encoded {
	var tolerations [][]byte
	for i := range 59 {
		b, _ := (&corev1.Toleration{Key: fmt.Sprintf("other-%d", i), Operator: corev1.TolerationOpExists}).Marshal()
		tolerations = append(tolerations, b)
	}
	last, _ := (&corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "x", Effect: corev1.TaintEffectNoSchedule}).Marshal()
	tolerations = append(tolerations, last)
	var term corev1.NodeSelectorTerm
	for i := range 30 {
		term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: fmt.Sprintf("label-%d", i), Operator: corev1.NodeSelectorOpExists})
	}
	affinity, _ := (&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}).Marshal()
	cpu, _ := (&resource.Quantity{}).Marshal()
	if q, err := resource.ParseQuantity("1m"); err == nil {
		cpu, _ = q.Marshal()
	}
	req := &pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Namespace: "default"}
	for i := range 128 {
		req.Components = append(req.Components, &pb.Component{Name: fmt.Sprintf("c%d", i), Replicas: 1, ReplicaRequirements: &pb.ComponentReplicaRequirements{
			NodeClaim:            &pb.NodeClaim{NodeAffinityBytes: affinity, TolerationsBytes: tolerations},
			ResourceRequestBytes: map[string][]byte{"cpu": cpu},
		}})
	}
	b, _ := estimatorwire.Codec{}.Marshal(req)
	return b
}

// TestEstimatorHonoursDeadline: a legal component-set request against
// many nodes whose client gives up after 100 ms used to be computed to the
// end (506 ms of CPU past the deadline with 300 nodes; 2.1 s of CPU and
// 11.8 s on a loaded machine with these 1,000). The server now stops at
// the deadline.
func TestEstimatorHonoursDeadline(t *testing.T) {
	finished := make(chan error, 1)
	conn := estimatorConn(t, deadlineCluster(), grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		res, err := handler(ctx, req)
		finished <- err
		return res, err
	}))
	req := deadlineRequest()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var res pb.MaxAvailableComponentSetsResponse
	start, cpu := time.Now(), cpuTime()
	var err, handlerErr error
	within(t, func() {
		err = conn.Invoke(ctx, service.Estimator_MaxAvailableComponentSets_FullMethodName, req, &res)
		handlerErr = <-finished
	})
	took, used := time.Since(start), cpuTime()-cpu
	t.Logf("%d bytes, 1000 nodes: client %v, handler %v, ended after %v with %v of CPU", len(req), err, handlerErr, took, used)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("client got %v, want DeadlineExceeded", err)
	}
	if took > 3*time.Second || used > time.Second {
		t.Fatalf("the handler ended %v after the call began, with %v of CPU; want at most 3s and 1s", took, used)
	}
	if code := status.Code(handlerErr); code != codes.DeadlineExceeded && code != codes.Canceled {
		t.Fatalf("handler returned %v, want DeadlineExceeded or Canceled (the client's reset may arrive first)", handlerErr)
	}
}
