package estimatorserver

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/service"
)

// TestConcurrentRequestLimit: with one slot, a request arriving while
// another is in its handler is refused with ResourceExhausted; the slot
// comes back when the handler returns, and when a request fails before
// reaching its handler.
func TestConcurrentRequestLimit(t *testing.T) {
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "default"}, Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{}}}
	kube := fake.NewClientset(deploy)
	entered, block := make(chan struct{}, 1), make(chan struct{})
	kube.PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		entered <- struct{}{}
		<-block
		return false, nil, nil
	})
	e := New("m1", kube)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := newGRPCServer(e, TLSFiles{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(estimatorwire.Codec{}), grpc.MaxCallSendMsgSize(2*estimatorwire.MaxMessageSize)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	replicas := func() error {
		var res pb.MaxAvailableReplicasResponse
		return conn.Invoke(context.Background(), service.Estimator_MaxAvailableReplicas_FullMethodName, &pb.MaxAvailableReplicasRequest{Cluster: "m1"}, &res)
	}

	blocked := make(chan error, 1)
	go func() {
		var res pb.UnschedulableReplicasResponse
		blocked <- conn.Invoke(context.Background(), service.Estimator_GetUnschedulableReplicas_FullMethodName, &pb.UnschedulableReplicasRequest{Cluster: "m1",
			Resource: &pb.ObjectReference{ApiVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "d"}}, &res)
	}()
	<-entered
	if err := replicas(); status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "serving 1 requests, its limit") {
		t.Fatalf("second request while the first is in its handler: got %v, want ResourceExhausted", err)
	}
	close(block)
	if err := <-blocked; err != nil {
		t.Fatalf("first request: %v", err)
	}
	for i := range 3 {
		if err := replicas(); err != nil {
			t.Fatalf("request %d after the first returned: %v", i, err)
		}
	}

	// Requests refused before their handler (message too large) give the
	// slot back when their stream ends.
	oversized := &pb.MaxAvailableReplicasRequest{Cluster: strings.Repeat("x", estimatorwire.MaxMessageSize)}
	for i := range 3 {
		var res pb.MaxAvailableReplicasResponse
		err := conn.Invoke(context.Background(), service.Estimator_MaxAvailableReplicas_FullMethodName, oversized, &res)
		if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "larger than max") {
			t.Fatalf("oversized request %d: got %v", i, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for err = replicas(); err != nil && time.Now().Before(deadline); err = replicas() {
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("after oversized request %d, the slot did not come back: %v", i, err)
		}
	}
}
