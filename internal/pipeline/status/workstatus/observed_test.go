package workstatus

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func state(uid, rv string, generation int64) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetUID(types.UID(uid))
	u.SetResourceVersion(rv)
	u.SetGeneration(generation)
	return u
}

func obsOf(u *unstructured.Unstructured) *observation {
	o := observationOf(u)
	return &o
}

// TestPickNeverGoesBack: the later of the applied object and the cached
// one is reflected, and neither replaces an entry reflected from a later
// state of the same object.
func TestPickNeverGoesBack(t *testing.T) {
	a10, a12, a20 := state("a", "10", 1), state("a", "12", 1), state("a", "20", 2)
	b30 := state("b", "30", 1)
	opaque1, opaque2 := state("a", "x-1", 1), state("a", "x-2", 2)
	a9999, a10000 := state("a", "9999", 1), state("a", "10000", 1)
	cases := []struct {
		name            string
		applied, cached *unstructured.Unstructured
		last            *observation
		want            *unstructured.Unstructured
	}{
		{name: "applied only", applied: a10, want: a10},
		{name: "cached only", cached: a12, want: a12},
		{name: "nothing", want: nil},
		{name: "cache later than the apply (event folded into the outcome)", applied: a10, cached: a12, want: a12},
		{name: "cache behind the apply", applied: a12, cached: a10, want: a12},
		{name: "same version: the applied one", applied: a12, cached: state("a", "12", 1), want: a12},
		{name: "versions do not parse, same generation: the applied one", applied: opaque1, cached: state("a", "x-3", 1), want: opaque1},
		{name: "versions do not parse: the later generation", applied: opaque1, cached: opaque2, want: opaque2},
		{name: "10000 after 9999 (numbers, not text)", applied: a9999, cached: a10000, want: a10000},
		{name: "cache holds an object recreated after the apply", applied: a20, cached: b30, want: b30},
		{name: "cache still holds the deleted object", applied: b30, cached: a20, want: b30},
		{name: "apply older than the written entry, cache not listed", applied: a10, last: obsOf(a12), want: nil},
		{name: "cache older than the written entry", cached: a10, last: obsOf(a20), want: nil},
		{name: "written entry older", applied: a20, last: obsOf(a12), want: a20},
		{name: "written entry of the same state", cached: a12, last: obsOf(a12), want: a12},
		{name: "written entry of another object does not hold back", applied: a10, last: obsOf(b30), want: a10},
		{name: "opaque versions: a later generation is kept", applied: opaque1, last: obsOf(opaque2), want: nil},
		{name: "opaque versions: a later generation wins", applied: opaque2, last: obsOf(opaque1), want: opaque2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pick(c.applied, c.cached, c.last); got != c.want {
				t.Errorf("pick = %v, want %v", desc(got), desc(c.want))
			}
		})
	}
}

func desc(u *unstructured.Unstructured) string {
	if u == nil {
		return "keep the entry"
	}
	return string(u.GetUID()) + "@" + u.GetResourceVersion()
}

func TestObservationsFollowTheWork(t *testing.T) {
	o := newObservations()
	key := types.NamespacedName{Namespace: "karmada-es-m1", Name: "w"}
	refs := []workapply.Ref{{Ordinal: 0}, {Ordinal: 1}}
	o.put(key, "w1", refs, map[int]observation{0: {uid: "a", resourceVersion: "5"}, 1: {uid: "b", resourceVersion: "6"}})
	// Only manifest 0 refreshed: manifest 1 keeps what it was reflected from.
	o.put(key, "w1", refs, map[int]observation{0: {uid: "a", resourceVersion: "9"}})
	got := o.get(key, "w1")
	if got[0].resourceVersion != "9" || got[1].resourceVersion != "6" {
		t.Fatalf("observations %+v", got)
	}
	if o.get(key, "w2") != nil {
		t.Fatal("observations of an earlier Work of the same name were returned")
	}
	// The Work lost manifest 1.
	o.put(key, "w1", refs[:1], nil)
	if got := o.get(key, "w1"); len(got) != 1 || got[0].resourceVersion != "9" {
		t.Fatalf("observations %+v after manifest 1 went", got)
	}
	o.forget(key)
	if o.get(key, "w1") != nil || len(o.m) != 0 {
		t.Fatal("forgotten observations returned")
	}
}

// fakeMemberCache is a member cache that has not listed yet or holds objs.
type fakeMemberCache struct {
	synced bool
	objs   map[string]*unstructured.Unstructured
}

func (f *fakeMemberCache) Watch(schema.GroupVersionKind) error { return nil }

func (f *fakeMemberCache) Cached(_ schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, bool, error) {
	if !f.synced {
		return nil, false, nil
	}
	return f.objs[namespace+"/"+name], true, nil
}

type nopRecorder struct{}

func (nopRecorder) Event(runtime.Object, string, string, string) {}

// loadBalancer is a member LoadBalancer Service at version rv, with an
// ingress address when ip is set.
func loadBalancer(rv, ip string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"namespace": "default", "name": "web", "uid": "svc-1", "resourceVersion": rv},
		"spec":     map[string]any{"type": "LoadBalancer"}}}
	if ip != "" {
		u.Object["status"] = map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": ip}}}}
	}
	return u
}

// TestCollectKeepsTheLaterReflection: an outcome carrying the object as an
// apply returned it, older than the state the Work's status was reflected
// from, does not turn the status back while the member cache has not
// listed (the cache is then read again).
func TestCollectKeepsTheLaterReflection(t *testing.T) {
	r := New(Deps{Interpreter: resourceinterpreter.New(native.New()), Recorder: nopRecorder{}}, Options{})
	raw, _ := json.Marshal(loadBalancer("", "").Object)
	work := &workv1alpha1.Work{Spec: workv1alpha1.WorkSpec{Workload: workv1alpha1.WorkloadTemplate{
		Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}}}}
	ref := workapply.Ref{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Service"}, Namespace: "default", Name: "web"}
	newer := loadBalancer("12", "192.0.2.1")
	ctx := context.Background()

	// The member event's reflection (cache listed).
	statuses, refl, err := r.collect(ctx, work, &fakeMemberCache{synced: true, objs: map[string]*unstructured.Unstructured{"default/web": newer}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(statuses) != 1 || statuses[0].Health != workv1alpha1.ResourceHealthy || refl.unsynced {
		t.Fatalf("reflection from the cache: %+v, unsynced %v", statuses, refl.unsynced)
	}
	work.Status.ManifestStatuses = statuses
	last := refl.observed

	// The apply's outcome, older, after the member cache restarted.
	outcome := hold(workapply.Outcome{Manifests: []workapply.Manifest{{Ref: ref, Object: loadBalancer("10", "")}}})
	statuses, refl, err = r.collect(ctx, work, &fakeMemberCache{}, outcome, last)
	if err != nil {
		t.Fatal(err)
	}
	if len(statuses) != 1 || statuses[0].Health != workv1alpha1.ResourceHealthy || !strings.Contains(string(statuses[0].Status.Raw), "192.0.2.1") {
		t.Errorf("an older apply-time observation replaced the reflected status: %+v", statuses)
	}
	if !refl.unsynced {
		t.Error("a member cache that has not listed must be read again")
	}
	if _, ok := refl.observed[0]; ok {
		t.Error("the kept entry was recorded as refreshed")
	}
}
