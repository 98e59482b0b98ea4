package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/test/harness"
)

// idleCost is what Propel costs once everything is propagated and nothing
// changes: the requests it makes to the member API servers (every verb,
// leases left out, as for the writes) and to the control plane, and its
// CPU.
type idleCost struct {
	duration time.Duration
	// memberPerMinute is the requests per member per minute, on average
	// over the members; byKey the same by "<verb> <resource>".
	memberPerMinute float64
	byKey           map[string]float64
	// controlPlanePerMinute is the control plane's requests per minute.
	controlPlanePerMinute float64
	// cmCPU is the CPU of Propel's processes: the controller manager,
	// and the scheduler when it runs apart (-scheduler-bin).
	cmCPU time.Duration
}

// measureIdle waits d and counts the requests every API server served
// meanwhile. Nothing else runs against the members by then (the observer
// watches only the control plane), so their requests are Propel's.
func measureIdle(ctx context.Context, env *harness.Env, procs []*localenv.Process, d time.Duration) (*idleCost, error) {
	servers := map[string]*rest.Config{"karmada": env.ControlPlane.Config}
	for _, m := range env.Members {
		servers[m.Options.Name] = m.Config
	}
	every := func(string) bool { return true }
	before, err := requestCountsOf(ctx, servers, every)
	if err != nil {
		return nil, err
	}
	// The first read is itself a request to every server, counted by the
	// second: a GET of /metrics, which has no resource.
	for name := range servers {
		before[name+" GET "]++
	}
	cpu := processesCPU(procs)
	fmt.Fprintf(os.Stderr, "bench: idle for %s\n", d)
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	after, err := requestCountsOf(ctx, servers, every)
	if err != nil {
		return nil, err
	}
	c := &idleCost{duration: d, byKey: map[string]float64{}, cmCPU: processesCPU(procs) - cpu}
	c.memberPerMinute, c.controlPlanePerMinute = idleRates(before, after, len(env.Members), d, c.byKey)
	return c, nil
}

// idleRates turns two request counts into per-minute rates: the average
// member's (also by verb and resource, into byKey) and the control
// plane's. Only the karmada server's keys are the control plane's.
func idleRates(before, after map[string]float64, members int, d time.Duration, byKey map[string]float64) (member, controlPlane float64) {
	minutes := d.Minutes()
	if minutes <= 0 || members == 0 {
		return 0, 0
	}
	for k, v := range after {
		delta := v - before[k]
		if delta <= 0 {
			continue
		}
		server, rest, _ := strings.Cut(k, " ")
		if server == "karmada" {
			controlPlane += delta / minutes
			continue
		}
		perMember := delta / minutes / float64(members)
		member += perMember
		byKey[rest] += perMember
	}
	return member, controlPlane
}

func (c *idleCost) report() {
	fmt.Printf("\nIdle for %s after every binding was aggregated: %.1f requests per member per minute, %.1f per minute to the control plane; controller manager CPU %.1f%%.\n\n",
		c.duration, c.memberPerMinute, c.controlPlanePerMinute, 100*c.cmCPU.Seconds()/c.duration.Seconds())
	keys := make([]string, 0, len(c.byKey))
	for k := range c.byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return c.byKey[keys[i]] > c.byKey[keys[j]] })
	fmt.Println("| requests per member per minute | verb, resource |\n|---|---|")
	for _, k := range keys {
		fmt.Printf("| %.2f | %s |\n", c.byKey[k], k)
	}
}
