package accurate

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/service"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// recordingEstimator answers every estimate with its answer and keeps the
// requests and their "object" metadata.
type recordingEstimator struct {
	service.UnimplementedEstimatorServer
	answer int32

	mu       sync.Mutex
	requests []proto.Message
	objects  []string
}

func (r *recordingEstimator) record(ctx context.Context, req proto.Message) {
	md, _ := metadata.FromIncomingContext(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req)
	r.objects = append(r.objects, md.Get("object")...)
}

func (r *recordingEstimator) MaxAvailableReplicas(ctx context.Context, req *pb.MaxAvailableReplicasRequest) (*pb.MaxAvailableReplicasResponse, error) {
	r.record(ctx, req)
	return &pb.MaxAvailableReplicasResponse{MaxReplicas: r.answer}, nil
}

func (r *recordingEstimator) MaxAvailableComponentSets(ctx context.Context, req *pb.MaxAvailableComponentSetsRequest) (*pb.MaxAvailableComponentSetsResponse, error) {
	r.record(ctx, req)
	return &pb.MaxAvailableComponentSetsResponse{MaxSets: r.answer}, nil
}

// TestEstimateClustersSendsEachClusterItsRequest: the request encoded once
// per decision reaches every cluster's estimator as the whole request
// naming that cluster, for replicas and for component sets, and each
// answer lands on its cluster.
func TestEstimateClustersSendsEachClusterItsRequest(t *testing.T) {
	names := []string{"m-a", "m-b", "m-c"}
	ips := loopbackIPs(len(names))
	lis, port := listenSamePort(t, ips)
	servers := make([]*recordingEstimator, len(names))
	var services []runtime.Object
	for i, name := range names {
		servers[i] = &recordingEstimator{answer: int32(10 * (i + 1))}
		srv := grpc.NewServer(grpc.ForceServerCodec(estimatorwire.Codec{}))
		service.RegisterEstimatorServer(srv, servers[i])
		go func() { _ = srv.Serve(lis[i]) }()
		t.Cleanup(srv.Stop)
		services = append(services, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-system", Name: "karmada-scheduler-estimator-" + name},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: ips[i]},
		})
	}
	opts := *NewOptions()
	opts.Enabled, opts.Port, opts.Timeout = true, port, 10*time.Second
	acc := New(opts, clientfake.NewClientBuilder().WithRuntimeObjects(services...).Build(), testr.New(t))
	clusters := make([]*clusterv1alpha1.Cluster, len(names))
	for i, name := range names {
		clusters[i] = &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}

	rr := &workv1alpha2.ReplicaRequirements{
		Namespace: "ns", PriorityClassName: "high",
		NodeClaim: &workv1alpha2.NodeClaim{
			NodeSelector: map[string]string{"zone": "a", "disk": "ssd"},
			Tolerations:  []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}},
		},
		ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
	}
	comps := []workv1alpha2.Component{
		{Name: "leader", Replicas: 1, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: rr.ResourceRequest}},
		{Name: "worker", Replicas: 3, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: rr.ResourceRequest, NodeClaim: rr.NodeClaim}},
	}
	ref := workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: "web"}
	wantRR, err := replicaRequirements(rr)
	if err != nil {
		t.Fatal(err)
	}
	wantComps, err := components(comps)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		spec *workv1alpha2.ResourceBindingSpec
		want func(cluster string) proto.Message
	}{
		{"replicas", &workv1alpha2.ResourceBindingSpec{Resource: ref, Replicas: 5, ReplicaRequirements: rr},
			func(cluster string) proto.Message {
				return &pb.MaxAvailableReplicasRequest{Cluster: cluster, ReplicaRequirements: wantRR}
			}},
		{"component sets", &workv1alpha2.ResourceBindingSpec{Resource: ref, Components: comps},
			func(cluster string) proto.Message {
				return &pb.MaxAvailableComponentSetsRequest{Cluster: cluster, Namespace: "ns", Components: wantComps}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range servers {
				s.requests, s.objects = nil, nil
			}
			got := acc.EstimateClusters(clusters, tc.spec, nil)
			if want := []int64{10, 20, 30}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
				t.Errorf("answers %v, want %v", got, want)
			}
			for i, s := range servers {
				if len(s.requests) != 1 {
					t.Fatalf("estimator of %s got %d requests, want 1", names[i], len(s.requests))
				}
				if want := tc.want(names[i]); !proto.Equal(s.requests[0], want) {
					t.Errorf("estimator of %s got\n%v\nwant\n%v", names[i], s.requests[0], want)
				}
				if want := "kind=Deployment, name=ns/web"; len(s.objects) != 1 || s.objects[0] != want {
					t.Errorf("estimator of %s got object metadata %q, want %q", names[i], s.objects, want)
				}
			}
		})
	}

	unreachable := []*clusterv1alpha1.Cluster{{ObjectMeta: metav1.ObjectMeta{Name: "m-none"}}}
	if got := acc.EstimateClusters(unreachable, &workv1alpha2.ResourceBindingSpec{Resource: ref, Replicas: 5, ReplicaRequirements: rr}, nil); got[0] != estimator.UnauthenticReplica {
		t.Errorf("cluster without an estimator: got %d, want %d", got[0], estimator.UnauthenticReplica)
	}
}
