package controllermanager

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// leaseGate runs its runnables only while this process holds a second
// Lease besides the manager's own. The in-process scheduler uses it with
// karmada-scheduler's Lease, which karmada-scheduler and propel-scheduler
// hold while they schedule, so that at most one scheduler places bindings
// at a time whichever of them run. The gate itself is a leader-election
// runnable of the manager: it competes for the second Lease only once the
// controller manager leads. Losing the Lease stops the manager (and so
// the process), as karmada-scheduler exits when it loses it.
type leaseGate struct {
	config    *rest.Config
	namespace string
	name      string
	// duration, renew and retry are the leader-election timings.
	duration, renew, retry time.Duration
	logger                 logr.Logger

	runnables []manager.Runnable
}

// gatedManager is the manager as the gated controllers see it: what they
// add to it runs under the gate.
type gatedManager struct {
	manager.Manager
	gate *leaseGate
}

// Add registers r to run while the gate's Lease is held.
func (m gatedManager) Add(r manager.Runnable) error {
	m.gate.runnables = append(m.gate.runnables, r)
	return nil
}

// NeedLeaderElection makes the manager start the gate only once it holds
// its own Lease.
func (g *leaseGate) NeedLeaderElection() bool { return true }

// Start competes for the Lease until ctx ends; while it is held the
// runnables run. It returns nil when ctx ends and an error when the Lease
// is lost or a runnable fails.
func (g *leaseGate) Start(ctx context.Context) error {
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("lease %s/%s: identity: %w", g.namespace, g.name, err)
	}
	lock, err := resourcelock.NewFromKubeconfig(resourcelock.LeasesResourceLock, g.namespace, g.name,
		resourcelock.ResourceLockConfig{Identity: host + "_" + string(uuid.NewUUID())}, g.config, g.renew)
	if err != nil {
		return fmt.Errorf("lease %s/%s: %w", g.namespace, g.name, err)
	}
	// The election outlives ctx while the runnables stop, so that the Lease
	// is released only once they no longer write; before the Lease is
	// acquired, ctx ending ends the election at once.
	electionCtx, stopElection := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElection()
	var (
		mu       sync.Mutex
		started  bool
		stopped  bool // the election is over: a late start must not run
		finished = make(chan struct{})
		runErr   error
	)
	stopWaiting := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !started {
			stopElection()
		}
	})
	defer stopWaiting()
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, Name: g.name, ReleaseOnCancel: true,
		LeaseDuration: g.duration, RenewDeadline: g.renew, RetryPeriod: g.retry,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				mu.Lock()
				if stopped || ctx.Err() != nil {
					mu.Unlock()
					stopElection()
					return
				}
				started = true
				mu.Unlock()
				defer close(finished)
				// The runnables stop when the Lease is lost or ctx ends;
				// then the election ends and releases the Lease.
				defer stopElection()
				runCtx, cancel := context.WithCancel(leading)
				defer cancel()
				defer context.AfterFunc(ctx, cancel)()
				g.logger.Info("lease acquired; starting", "lease", g.namespace+"/"+g.name)
				runErr = g.runAll(runCtx)
				if runErr == nil && runCtx.Err() == nil {
					runErr = fmt.Errorf("stopped while holding the lease %s/%s", g.namespace, g.name)
				}
			},
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return fmt.Errorf("lease %s/%s: %w", g.namespace, g.name, err)
	}
	g.logger.Info("waiting for the lease before starting", "lease", g.namespace+"/"+g.name)
	elector.Run(electionCtx)
	mu.Lock()
	stopped = true
	ran := started
	mu.Unlock()
	if !ran {
		if ctx.Err() != nil {
			return nil // ctx ended before the Lease was acquired
		}
		return fmt.Errorf("lost the lease %s/%s", g.namespace, g.name)
	}
	<-finished
	switch {
	case runErr != nil:
		return runErr
	case ctx.Err() != nil:
		return nil
	default:
		return fmt.Errorf("lost the lease %s/%s", g.namespace, g.name)
	}
}

// runAll runs every runnable until ctx ends or one fails, and waits for
// all of them to return.
func (g *leaseGate) runAll(ctx context.Context) error {
	if len(g.runnables) == 0 {
		<-ctx.Done()
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(g.runnables))
	for _, r := range g.runnables {
		go func() {
			err := r.Start(ctx)
			cancel()
			errs <- err
		}()
	}
	var all []error
	for range g.runnables {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}
