package controllermanager

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/test/harness"
)

// TestLeaseGateOneAtATime runs two gates on karmada-scheduler's Lease
// against a real API server: only the holder runs its runnable; when the
// holder's context ends, its runnable stops before the Lease is released,
// and then the other gate takes the Lease and runs. The runnables never
// overlap.
func TestLeaseGateOneAtATime(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// The harness creates karmada-system with Propel's RBAC objects; make
	// sure of it without depending on that.
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.SystemNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	var active atomic.Int32
	var overlapped atomic.Bool
	running := make(chan string, 2)
	gate := func(who string) *leaseGate {
		return &leaseGate{
			config: env.ControllerManagerConfig(), namespace: names.SystemNamespace, name: names.SchedulerLease,
			duration: 4 * time.Second, renew: 3 * time.Second, retry: 500 * time.Millisecond, logger: logr.Discard(),
			runnables: []manager.Runnable{manager.RunnableFunc(func(ctx context.Context) error {
				if active.Add(1) > 1 {
					overlapped.Store(true)
				}
				running <- who
				<-ctx.Done()
				time.Sleep(2500 * time.Millisecond) // a write still in flight when told to stop
				active.Add(-1)
				return nil
			})},
		}
	}
	start := func(who string) (context.CancelFunc, chan error) {
		gctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- gate(who).Start(gctx) }()
		return stop, done
	}
	expectRunning := func(want string) {
		t.Helper()
		select {
		case got := <-running:
			if got != want {
				t.Fatalf("%s runs, want %s", got, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s did not start", want)
		}
	}

	stopA, doneA := start("a")
	expectRunning("a")
	stopB, doneB := start("b")
	select {
	case who := <-running:
		t.Fatalf("%s runs while a holds the Lease", who)
	case <-time.After(3 * time.Second): // more than 4 retry periods
	}
	lease := &coordinationv1.Lease{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: names.SystemNamespace, Name: names.SchedulerLease}, lease); err != nil {
		t.Fatal(err)
	}
	holderA := ptr.Deref(lease.Spec.HolderIdentity, "")
	if holderA == "" {
		t.Fatal("Lease karmada-scheduler has no holder")
	}

	stopA()
	if err := <-doneA; err != nil {
		t.Fatalf("a stopped with %v, want nil on shutdown", err)
	}
	expectRunning("b")
	if overlapped.Load() {
		t.Error("b ran while a's runnable was still running")
	}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: names.SystemNamespace, Name: names.SchedulerLease}, lease); err != nil {
		t.Fatal(err)
	}
	if h := ptr.Deref(lease.Spec.HolderIdentity, ""); h == "" || h == holderA {
		t.Errorf("Lease holder %q after a stopped, want b (a was %q)", h, holderA)
	}
	stopB()
	if err := <-doneB; err != nil {
		t.Fatalf("b stopped with %v", err)
	}
}
