package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestLoadNodeIsReadyWithCapacityAndTopology(t *testing.T) {
	n := loadNode("member4", 5, time.Now())
	if n.Name != "member4-node-5" || n.Labels["kubernetes.io/hostname"] != n.Name {
		t.Fatalf("name %s labels %v", n.Name, n.Labels)
	}
	if n.Labels["topology.kubernetes.io/zone"] != "member4-zone-2" || n.Labels["topology.kubernetes.io/region"] != "member4" {
		t.Fatalf("topology labels %v", n.Labels)
	}
	ready := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = c.Status == corev1.ConditionTrue
		} else if c.Status != corev1.ConditionFalse {
			t.Fatalf("pressure condition %s is %s", c.Type, c.Status)
		}
	}
	if !ready {
		t.Fatal("node is not Ready")
	}
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		a, c := n.Status.Allocatable[res], n.Status.Capacity[res]
		if a.IsZero() || a.Cmp(c) > 0 {
			t.Fatalf("%s: allocatable %s, capacity %s", res, a.String(), c.String())
		}
	}
	if p := n.Status.Allocatable[corev1.ResourcePods]; p.Value() != podsPerNode {
		t.Fatalf("pods allocatable %s", p.String())
	}
}

func TestLoadPodIsBoundAndRunning(t *testing.T) {
	const nodes = 7
	p := loadPod("member2", 23, nodes)
	if p.Namespace != loadNamespace || p.Spec.NodeName != "member2-node-2" {
		t.Fatalf("pod %s/%s on %q", p.Namespace, p.Name, p.Spec.NodeName)
	}
	req := p.Spec.Containers[0].Resources.Requests
	if req.Cpu().Cmp(resource.MustParse(podCPU)) != 0 || req.Memory().Cmp(resource.MustParse(podMemory)) != 0 {
		t.Fatalf("requests %v", req)
	}
	runningStatus(p, 23, nodes, time.Now())
	if p.Status.Phase != corev1.PodRunning || len(p.Status.Conditions) != 4 {
		t.Fatalf("status %+v", p.Status)
	}
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			t.Fatalf("condition %s is %s", c.Type, c.Status)
		}
	}
	node := loadNode("member2", 2, time.Now())
	if p.Status.HostIP != node.Status.Addresses[0].Address {
		t.Fatalf("host IP %s, node's %s", p.Status.HostIP, node.Status.Addresses[0].Address)
	}
	if s := p.Status.ContainerStatuses; len(s) != 1 || s[0].Name != p.Spec.Containers[0].Name || !s[0].Ready || s[0].State.Running == nil {
		t.Fatalf("container statuses %+v", s)
	}
	other := loadPod("member2", 24, nodes)
	runningStatus(other, 24, nodes, time.Now())
	if other.Status.PodIP == p.Status.PodIP {
		t.Fatal("two pods with one IP")
	}
}

func TestValidLoad(t *testing.T) {
	if err := validLoad(0, 0); err != nil {
		t.Fatal(err)
	}
	if err := validLoad(10, 10*podsPerNode); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][2]int{{0, 1}, {10, 10*podsPerNode + 1}, {-1, 0}} {
		if err := validLoad(bad[0], bad[1]); err == nil {
			t.Fatalf("-nodes %d -pods %d: want an error", bad[0], bad[1])
		}
	}
}

func TestInParallelBoundsWorkersAndStopsOnError(t *testing.T) {
	var inFlight, peak, calls atomic.Int32
	err := inParallel(context.Background(), 4, 200, func(context.Context, int) error {
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(time.Millisecond)
		inFlight.Add(-1)
		calls.Add(1)
		return nil
	})
	if err != nil || calls.Load() != 200 || peak.Load() > 4 {
		t.Fatalf("err %v, %d calls, peak %d in flight", err, calls.Load(), peak.Load())
	}
	calls.Store(0)
	boom := errors.New("boom")
	err = inParallel(context.Background(), 2, 10000, func(_ context.Context, i int) error {
		calls.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || calls.Load() > 100 {
		t.Fatalf("err %v after %d calls", err, calls.Load())
	}
}

func TestIdleRates(t *testing.T) {
	before := map[string]float64{"karmada GET clusters": 10, "member1 GET nodes": 5, "member2 GET nodes": 5}
	after := map[string]float64{"karmada GET clusters": 40, "member1 GET nodes": 35, "member2 GET nodes": 15, "member2 GET ": 20}
	byKey := map[string]float64{}
	member, cp := idleRates(before, after, 2, 30*time.Second, byKey)
	// members: (30 + 10 + 20) / 0.5 min / 2 members = 60; control plane 30 / 0.5 = 60
	if member != 60 || cp != 60 || byKey["GET nodes"] != 40 || byKey["GET "] != 20 {
		t.Fatalf("member %v, control plane %v, by key %v", member, cp, byKey)
	}
}

// The loader retries what an overloaded API server or etcd answers, and
// nothing that a retry cannot change.
func TestTransientLoadError(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{apierrors.NewInternalError(errors.New("etcdserver: request timed out")), true},
		{apierrors.NewServerTimeout(gr, "create", 1), true},
		{apierrors.NewTimeoutError("request did not complete", 1), true},
		{apierrors.NewTooManyRequests("slow down", 1), true},
		{apierrors.NewServiceUnavailable("unavailable"), true},
		{apierrors.NewNotFound(gr, "p"), false},
		{apierrors.NewBadRequest("bad"), false},
		{apierrors.NewForbidden(gr, "p", errors.New("no")), false},
	} {
		if got := transientLoadError(c.err); got != c.want {
			t.Errorf("transientLoadError(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
