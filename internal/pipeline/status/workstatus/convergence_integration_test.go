package workstatus_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/pipeline/status/manifeststatus"
	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// giveIngress plays the member's service controller: the LoadBalancer
// Service of work gets an address, which makes it healthy.
func giveIngress(t *testing.T, work *workv1alpha1.Work, ip string) {
	t.Helper()
	m1, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	live := &corev1.Service{}
	if err := m1.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: work.Name}, live); err != nil {
		t.Fatal(err)
	}
	live.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	if err := m1.Status().Update(context.Background(), live); err != nil {
		t.Fatal(err)
	}
}

// reflectsIngress reports whether work's manifest status shows the member
// Service with address ip, healthy.
func reflectsIngress(ctx context.Context, work *workv1alpha1.Work, ip string) (bool, error) {
	got, err := getWork(ctx, work)
	if err != nil || len(got.Status.ManifestStatuses) != 1 || got.Status.ManifestStatuses[0].Status == nil {
		return false, err
	}
	s := got.Status.ManifestStatuses[0]
	return strings.Contains(string(s.Status.Raw), ip) && s.Health == workv1alpha1.ResourceHealthy, nil
}

// TestStatusConvergesWhateverTheOrder: the apply outcome and the member's
// status change reach the controller in either order, and the Work ends
// with the member's latest status.
func TestStatusConvergesWhateverTheOrder(t *testing.T) {
	// The outcome is written first; the member's status change comes
	// while the controller's cache of Works has not shown that write yet
	// (a loaded machine). The reconcile of the member change then read a
	// Work without Applied, reflected nothing and wrote nothing; when the
	// cache caught up no event was left to bring the Work back, and the
	// Work said Unhealthy for good. The Work stays held here until it
	// converges, so only the controller's memory of its own write (not
	// the cache catching up, nor a resync) can bring it there.
	t.Run("outcome first, member change while the Work cache lags", func(t *testing.T) {
		work := createWork(t)
		svc := memberService(t, work)
		current, err := getWork(context.Background(), work)
		if err != nil {
			t.Fatal(err)
		}
		works.hold(current)
		t.Cleanup(func() { works.release(current) })

		ws.Record(client.ObjectKeyFromObject(work), workapply.Outcome{WorkUID: work.UID,
			Manifests: []workapply.Manifest{{Ref: serviceRef(work.Name), Object: svc}}})
		harness.Eventually(t, "applied, the Service unhealthy (no address yet)", func(ctx context.Context) (bool, error) {
			got, err := getWork(ctx, work)
			return err == nil && meta.IsStatusConditionTrue(got.Status.Conditions, workv1alpha1.WorkApplied) &&
				len(got.Status.ManifestStatuses) == 1 && got.Status.ManifestStatuses[0].Health == workv1alpha1.ResourceUnhealthy, err
		})

		reads := works.readsOf(work)
		giveIngress(t, work, "192.0.2.21")
		harness.Eventually(t, "the member change was reconciled", func(context.Context) (bool, error) {
			return works.readsOf(work) > reads, nil
		})
		harness.Eventually(t, "the member's latest status reflected while the cache lags", func(ctx context.Context) (bool, error) {
			return reflectsIngress(ctx, work, "192.0.2.21")
		})
	})

	// The member's status changes before the outcome is recorded: the
	// Work is not Applied yet, so the member change reflects nothing. The
	// outcome then carries the object as the apply returned it, older
	// than the member's; the newer one must win.
	t.Run("member change first, outcome of the older object", func(t *testing.T) {
		work := createWork(t)
		svc := memberService(t, work)
		reads := works.readsOf(work)
		giveIngress(t, work, "192.0.2.22")
		harness.Eventually(t, "the member change was reconciled", func(context.Context) (bool, error) {
			return works.readsOf(work) > reads, nil
		})
		ws.Record(client.ObjectKeyFromObject(work), workapply.Outcome{WorkUID: work.UID,
			Manifests: []workapply.Manifest{{Ref: serviceRef(work.Name), Object: svc}}})
		harness.Eventually(t, "the member's latest status reflected, not the applied one", func(ctx context.Context) (bool, error) {
			return reflectsIngress(ctx, work, "192.0.2.22")
		})
	})
}

// TestResyncWritesNothingUnlessStatusDrifted: the periodic resync of a
// settled Work reads it and writes nothing; a status changed behind the
// controller's back (which no event announces) is put right by the next
// resync.
func TestResyncWritesNothingUnlessStatusDrifted(t *testing.T) {
	work := createWork(t)
	svc := memberService(t, work)
	ws.Record(client.ObjectKeyFromObject(work), workapply.Outcome{WorkUID: work.UID,
		Manifests: []workapply.Manifest{{Ref: serviceRef(work.Name), Object: svc}}})
	var settled *workv1alpha1.Work
	harness.Eventually(t, "applied with its manifest status", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, work)
		settled = got
		return err == nil && len(got.Status.ManifestStatuses) == 1, err
	})
	writes.Quiet(t, 0)

	ownWrites := func() int {
		return writes.Matching(func(w harness.Write) bool {
			return strings.HasSuffix(w.Path, "/works/"+work.Name+"/status")
		})
	}
	beforeWrites, beforeReads := ownWrites(), works.readsOf(work)
	// Three resyncs: nothing happens to the Work meanwhile, so every read
	// is a resync's.
	harness.Eventually(t, "three resyncs", func(context.Context) (bool, error) {
		return works.readsOf(work) >= beforeReads+3, nil
	}, harness.Timeout(10*resyncPeriod))
	if n := ownWrites() - beforeWrites; n != 0 {
		t.Fatalf("resyncs of an unchanged Work wrote its status %d times, want 0", n)
	}

	// Someone else rewrites the manifest status; the Work's spec does not
	// change, so only a resync brings the controller back.
	drifted := settled.DeepCopy()
	drifted.Status.ManifestStatuses[0].Health = workv1alpha1.ResourceUnknown
	drifted.Status.ManifestStatuses[0].Status = nil
	if err := env.Client.Status().Update(context.Background(), drifted); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the resync restored the manifest status", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, work)
		if err != nil {
			return false, err
		}
		return manifeststatus.Equal(got.Status.ManifestStatuses, settled.Status.ManifestStatuses), nil
	}, harness.Timeout(10*resyncPeriod))
	if n := ownWrites() - beforeWrites; n != 1 {
		t.Errorf("repairing the drift cost %d status writes, want 1", n)
	}
}
