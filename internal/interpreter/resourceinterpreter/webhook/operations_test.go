package webhook

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

// answerAll is a well-behaved webhook for Workloads.
func answerAll(req interpreter.Request) interpreter.Response {
	res := interpreter.Succeeded("")
	switch req.Operation {
	case configv1alpha1.InterpreterOperationInterpretReplica:
		res.Replicas = ptr.To[int32](3)
		res.ReplicaRequirements = &workv1alpha2.ReplicaRequirements{
			ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
		}
	case configv1alpha1.InterpreterOperationInterpretComponent:
		res.Components = []workv1alpha2.Component{{Name: "main", Replicas: 3}}
	case configv1alpha1.InterpreterOperationReviseReplica:
		return patchOf(req.Object.Raw, func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, int64(*req.DesiredReplicas), "spec", "replicas")
		})
	case configv1alpha1.InterpreterOperationRetain:
		var observed unstructured.Unstructured
		_ = json.Unmarshal(req.ObservedObject.Raw, &observed.Object)
		paused, _, _ := unstructured.NestedBool(observed.Object, "spec", "paused")
		return patchOf(req.Object.Raw, func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, paused, "spec", "paused")
		})
	case configv1alpha1.InterpreterOperationAggregateStatus:
		var ready int64
		for _, item := range req.AggregatedStatus {
			var st map[string]any
			_ = json.Unmarshal(item.Status.Raw, &st)
			ready += int64(st["readyReplicas"].(float64))
		}
		return patchOf(req.Object.Raw, func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, ready, "status", "readyReplicas")
		})
	case configv1alpha1.InterpreterOperationInterpretStatus:
		res.RawStatus = &runtime.RawExtension{Raw: []byte(`{"readyReplicas":2}`)}
	case configv1alpha1.InterpreterOperationInterpretHealth:
		res.Healthy = ptr.To(true)
	case configv1alpha1.InterpreterOperationInterpretDependency:
		res.Dependencies = []configv1alpha1.DependentObjectReference{
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "cm"},
			{APIVersion: "v1", Kind: "Secret", Namespace: "default", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}},
		}
	}
	return res
}

func patchOf(raw []byte, edit func(*unstructured.Unstructured)) interpreter.Response {
	var o unstructured.Unstructured
	if err := json.Unmarshal(raw, &o.Object); err != nil {
		return interpreter.Errored(400, err)
	}
	edit(&o)
	current, _ := json.Marshal(o.Object)
	return interpreter.PatchResponseFromRaw(raw, current)
}

func TestOperationsValidAnswers(t *testing.T) {
	srv, rec := sdkServer(t, answerAll)
	i := newLoaded(t, srv)
	ctx := testContext(t)

	t.Run("InterpretReplica", func(t *testing.T) {
		replicas, req, err := i.GetReplicas(ctx, workload())
		if err != nil || replicas != 3 || req == nil || req.ResourceRequest.Cpu().MilliValue() != 100 {
			t.Fatalf("GetReplicas = %d, %+v, %v", replicas, req, err)
		}
	})
	t.Run("InterpretComponent", func(t *testing.T) {
		comps, err := i.GetComponents(ctx, workload())
		if err != nil || len(comps) != 1 || comps[0].Name != "main" || comps[0].Replicas != 3 {
			t.Fatalf("GetComponents = %+v, %v", comps, err)
		}
	})
	t.Run("ReviseReplica", func(t *testing.T) {
		in := workload()
		out, err := i.ReviseReplica(ctx, in, 7)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := unstructured.NestedInt64(out.Object, "spec", "replicas"); got != 7 {
			t.Fatalf("spec.replicas = %d, want 7", got)
		}
		if got, _, _ := unstructured.NestedInt64(in.Object, "spec", "replicas"); got != 3 {
			t.Fatalf("input modified: spec.replicas = %d", got)
		}
		if r, _ := rec.last(); r.DesiredReplicas == nil || *r.DesiredReplicas != 7 {
			t.Fatalf("request replicas = %v, want 7", r.DesiredReplicas)
		}
	})
	t.Run("Retain", func(t *testing.T) {
		observed := workload()
		_ = unstructured.SetNestedField(observed.Object, true, "spec", "paused")
		out, err := i.Retain(ctx, workload(), observed)
		if err != nil {
			t.Fatal(err)
		}
		if paused, _, _ := unstructured.NestedBool(out.Object, "spec", "paused"); !paused {
			t.Fatalf("spec.paused not retained: %v", out.Object["spec"])
		}
	})
	t.Run("AggregateStatus", func(t *testing.T) {
		items := []workv1alpha2.AggregatedStatusItem{
			{ClusterName: "member1", Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":1}`)}},
			{ClusterName: "member2", Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":2}`)}},
		}
		in := workload()
		out, err := i.AggregateStatus(ctx, in, items)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := unstructured.NestedInt64(out.Object, "status", "readyReplicas"); got != 3 {
			t.Fatalf("status.readyReplicas = %d, want 3", got)
		}
		if _, found := in.Object["status"]; found {
			t.Fatal("input object was modified")
		}
	})
	t.Run("InterpretStatus", func(t *testing.T) {
		st, err := i.ReflectStatus(ctx, workload())
		if err != nil || st == nil || string(st.Raw) != `{"readyReplicas":2}` {
			t.Fatalf("ReflectStatus = %v, %v", st, err)
		}
	})
	t.Run("InterpretHealth", func(t *testing.T) {
		healthy, err := i.InterpretHealth(ctx, workload())
		if err != nil || !healthy {
			t.Fatalf("InterpretHealth = %v, %v", healthy, err)
		}
	})
	t.Run("InterpretDependency", func(t *testing.T) {
		deps, err := i.GetDependencies(ctx, workload())
		if err != nil || len(deps) != 2 || deps[0].Name != "cm" || deps[1].LabelSelector == nil {
			t.Fatalf("GetDependencies = %+v, %v", deps, err)
		}
	})
}

// TestNoPatchReturnsInput: a successful answer without a patch leaves the
// object as it is.
func TestNoPatchReturnsInput(t *testing.T) {
	srv, _ := sdkServer(t, func(interpreter.Request) interpreter.Response { return interpreter.Succeeded("") })
	i := newLoaded(t, srv)
	in := workload()
	out, err := i.Retain(testContext(t), in, workload())
	if err != nil || out != in {
		t.Fatalf("Retain = %p, %v; want the input %p", out, err, in)
	}
	// An empty operation list also leaves it unchanged.
	srv2 := rawServer(t, 200, func(uid string) string {
		return `{"response":{"uid":"` + uid + `","successful":true,"patchType":"JSONPatch","patch":"W10="}}`
	})
	out, err = newLoaded(t, srv2).ReviseReplica(testContext(t), in, 9)
	if err != nil || out != in {
		t.Fatalf("ReviseReplica with [] patch = %v, %v", out, err)
	}
}

// TestRequestWireFormat checks the request envelope byte-level details.
func TestRequestWireFormat(t *testing.T) {
	srv, rec := sdkServer(t, answerAll)
	i := newLoaded(t, srv, func(h *configv1alpha1.ResourceInterpreterWebhook) { h.TimeoutSeconds = ptr.To[int32](3) })
	ctx := testContext(t)
	if _, _, err := i.GetReplicas(ctx, workload()); err != nil {
		t.Fatal(err)
	}
	req, body := rec.last()
	var envelope map[string]any
	if err := json.Unmarshal(body, &envelope); err != nil {
		t.Fatal(err)
	}
	if envelope["apiVersion"] != "config.karmada.io/v1alpha1" || envelope["kind"] != "ResourceInterpreterContext" {
		t.Fatalf("envelope = %v %v", envelope["apiVersion"], envelope["kind"])
	}
	r := envelope["request"].(map[string]any)
	if v, ok := r["replicas"]; !ok || v != float64(0) {
		t.Fatalf("request.replicas = %v (present %v), want 0 always present", v, ok)
	}
	for _, absent := range []string{"observedObject", "aggregatedStatus"} {
		if _, ok := r[absent]; ok {
			t.Errorf("request.%s present for InterpretReplica", absent)
		}
	}
	if req.Operation != configv1alpha1.InterpreterOperationInterpretReplica || req.Name != "nginx" || req.Namespace != "default" ||
		req.Kind != workloadGVK || len(req.UID) != 36 {
		t.Fatalf("request = %+v", req)
	}
	if !reflect.DeepEqual(r["object"], mustRoundTrip(t, workload().Object)) {
		t.Fatalf("object = %v", r["object"])
	}
	rec.mu.Lock()
	ct, query, proto := rec.header.Get("Content-Type"), rec.query, rec.proto
	rec.mu.Unlock()
	if ct != "application/json" || query != "timeout=3s" || proto != 2 {
		t.Fatalf("Content-Type %q, query %q, HTTP/%d; want application/json, timeout=3s, HTTP/2", ct, query, proto)
	}

	// Fresh uid per call; Retain carries the observed object.
	if _, err := i.Retain(ctx, workload(), workload()); err != nil {
		t.Fatal(err)
	}
	req2, _ := rec.last()
	if req2.UID == req.UID || req2.ObservedObject == nil || !strings.Contains(string(req2.ObservedObject.Raw), `"nginx"`) {
		t.Fatalf("Retain request uid %q (previous %q), observedObject %v", req2.UID, req.UID, req2.ObservedObject)
	}
}

func mustRoundTrip(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
