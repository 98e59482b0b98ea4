package lifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/test/harness"
)

// leaseName is --leader-elect-resource-name's default (Karmada's name).
const leaseName = "karmada-controller-manager"

func leaseHolder(ctx context.Context) (string, error) {
	lease := &coordinationv1.Lease{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: names.SystemNamespace, Name: leaseName}, lease); err != nil {
		return "", err
	}
	return ptr.Deref(lease.Spec.HolderIdentity, ""), nil
}

// TestLeaderElectionOnlyLeaderWrites runs two controller managers with
// leader election. Exactly one holds the Lease and propagates; the other
// makes no write at all, to any cluster (its own client metrics count
// every request it sends; it never even writes the Lease, since it starts
// once the leader holds it and the leader keeps renewing). When the leader
// is killed, the follower takes the Lease and propagates new templates.
func TestLeaderElectionOnlyLeaderWrites(t *testing.T) {
	const ns = "lifecycle-leader"
	createNamespace(t, names.SystemNamespace)
	createNamespace(t, ns)
	election := []string{"--leader-elect=true", "--leader-elect-lease-duration=8s",
		"--leader-elect-renew-deadline=6s", "--leader-elect-retry-period=1s",
		"--kube-api-qps=200", "--kube-api-burst=400"}
	addrA, addrB := freeAddr(t), freeAddr(t)
	a := startControllerManager(t, "cm-a", append(election, "--metrics-bind-address="+addrA, "--metrics-secure=false")...)
	var holder string
	harness.Eventually(t, "cm-a holds the Lease", func(ctx context.Context) (bool, error) {
		var err error
		if holder, err = leaseHolder(ctx); err != nil || holder == "" {
			return false, err
		}
		status, err := leaderStatus(ctx, addrA, leaseName)
		return status == 1, err
	}, harness.Timeout(2*time.Minute), harness.WhileRunning([]*localenv.Process{a}...), harness.LogsIn(env.LogDir))
	b := startControllerManager(t, "cm-b", append(election, "--metrics-bind-address="+addrB, "--metrics-secure=false")...)
	both := []*localenv.Process{a, b}
	// The leader-election gauge exists once the manager has synced its
	// caches and entered the election.
	harness.Eventually(t, "cm-b follows", func(ctx context.Context) (bool, error) {
		status, err := leaderStatus(ctx, addrB, leaseName)
		return status == 0, err
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(both...), harness.LogsIn(env.LogDir))
	waitClustersReady(t, both...)

	createPolicy(t, ns, "leader")
	first := createDeployments(t, ns, "leader", "leader", 20)
	expectPropagated(t, ns, first, 3*time.Minute, both...)

	ctx := context.Background()
	if h, err := leaseHolder(ctx); err != nil || h != holder {
		t.Fatalf("Lease holder %q (%v), want %q throughout", h, err, holder)
	}
	for _, c := range []struct {
		addr string
		want float64
	}{{addrA, 1}, {addrB, 0}} {
		if status, err := leaderStatus(ctx, c.addr, leaseName); err != nil || status != c.want {
			t.Fatalf("leader_election_master_status at %s = %v (%v), want %v", c.addr, status, err, c.want)
		}
	}
	followerWrites, detail, err := clientWrites(ctx, addrB)
	if err != nil {
		t.Fatal(err)
	}
	if followerWrites != 0 {
		t.Errorf("the follower wrote %v times: %s", followerWrites, detail)
	}
	leaderWrites, detail, err := clientWrites(ctx, addrA)
	if err != nil {
		t.Fatal(err)
	}
	// At least the 2 Works per Deployment and their member objects.
	if leaderWrites < float64(4*len(first)) {
		t.Errorf("the leader wrote only %v times for %d Deployments: %s", leaderWrites, len(first), detail)
	}
	t.Logf("before failover: leader %v writes, follower %v", leaderWrites, followerWrites)

	a.Kill()
	harness.Eventually(t, "cm-b takes the Lease", func(ctx context.Context) (bool, error) {
		h, err := leaseHolder(ctx)
		if err != nil || h == holder || h == "" {
			return false, err
		}
		status, err := leaderStatus(ctx, addrB, leaseName)
		if status != 1 {
			return false, fmt.Errorf("Lease held by %q, cm-b reports %v (%v)", h, status, err)
		}
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.WhileRunning([]*localenv.Process{b}...), harness.LogsIn(env.LogDir))
	second := createDeployments(t, ns, "leader-after-failover", "leader", 10)
	expectPropagated(t, ns, append(first, second...), 3*time.Minute, b)
	if writes, _, err := clientWrites(ctx, addrB); err != nil || writes == 0 {
		t.Errorf("the new leader reports %v writes (%v)", writes, err)
	}
}
