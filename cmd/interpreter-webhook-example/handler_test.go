package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

// sampleWorkload is Karmada's workload-sample.yaml with resources, a
// ConfigMap volume, a Secret env and a field the example does not model.
const sampleWorkload = `{"apiVersion":"workload.example.io/v1alpha1","kind":"Workload",
 "metadata":{"name":"nginx","namespace":"default","labels":{"app":"nginx"}},
 "spec":{"replicas":3,"unknownField":"kept","template":{"metadata":{"labels":{"app":"nginx"}},
  "spec":{"containers":[{"name":"nginx","image":"nginx",
    "resources":{"requests":{"cpu":"250m","memory":"64Mi"}},
    "env":[{"name":"PASSWORD","valueFrom":{"secretKeyRef":{"name":"db-secret","key":"password"}}}]}],
   "volumes":[{"name":"conf","configMap":{"name":"nginx-conf"}}]}}},
 "status":{"readyReplicas":2}}`

func handle(t *testing.T, op configv1alpha1.InterpreterOperation, object string, edit ...func(*interpreter.Request)) interpreter.Response {
	t.Helper()
	req := interpreter.Request{ResourceInterpreterRequest: configv1alpha1.ResourceInterpreterRequest{
		UID: "uid-1", Operation: op, Name: "nginx", Namespace: "default",
		Object: runtime.RawExtension{Raw: []byte(object)},
	}}
	for _, e := range edit {
		e(&req)
	}
	return interpreter.NewWebhook(&workloadInterpreter{}, interpreter.NewDecoder(newScheme())).Handle(context.Background(), req)
}

func succeeded(t *testing.T, r interpreter.Response) {
	t.Helper()
	if !r.Successful || r.UID != "uid-1" {
		t.Fatalf("response unsuccessful: %+v %+v", r, r.Status)
	}
}

// applied applies the response's patch to object and decodes the result.
func applied(t *testing.T, object string, r interpreter.Response) map[string]any {
	t.Helper()
	succeeded(t, r)
	out := []byte(object)
	if r.Patch != nil {
		p, err := jsonpatch.DecodePatch(r.Patch)
		if err != nil {
			t.Fatal(err)
		}
		if out, err = p.Apply(out); err != nil {
			t.Fatal(err)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func TestInterpretReplica(t *testing.T) {
	r := handle(t, configv1alpha1.InterpreterOperationInterpretReplica, sampleWorkload)
	succeeded(t, r)
	if r.Replicas == nil || *r.Replicas != 3 {
		t.Fatalf("replicas = %v", r.Replicas)
	}
	req := r.ReplicaRequirements
	if req == nil || req.ResourceRequest.Cpu().MilliValue() != 250 || req.ResourceRequest.Memory().Value() != 64<<20 {
		t.Fatalf("requirements = %+v", req)
	}
	r = handle(t, configv1alpha1.InterpreterOperationInterpretReplica, `{"apiVersion":"workload.example.io/v1alpha1","kind":"Workload","spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`)
	if succeeded(t, r); *r.Replicas != 1 || r.ReplicaRequirements != nil {
		t.Fatalf("unset replicas = %d, requirements %+v; want 1 and none", *r.Replicas, r.ReplicaRequirements)
	}
}

func TestReviseReplica(t *testing.T) {
	r := handle(t, configv1alpha1.InterpreterOperationReviseReplica, sampleWorkload, func(r *interpreter.Request) {
		n := int32(5)
		r.DesiredReplicas = &n
	})
	m := applied(t, sampleWorkload, r)
	if field(m, "spec", "replicas") != float64(5) || field(m, "spec", "unknownField") != "kept" {
		t.Fatalf("spec = %v", m["spec"])
	}
	if strings.Count(string(r.Patch), `"op"`) != 1 {
		t.Fatalf("patch %s, want a single operation", r.Patch)
	}
}

func TestRetain(t *testing.T) {
	observed := strings.Replace(sampleWorkload, `"replicas":3,`, `"replicas":3,"paused":true,`, 1)
	withObserved := func(o string) func(*interpreter.Request) {
		return func(r *interpreter.Request) { r.ObservedObject = &runtime.RawExtension{Raw: []byte(o)} }
	}
	m := applied(t, sampleWorkload, handle(t, configv1alpha1.InterpreterOperationRetain, sampleWorkload, withObserved(observed)))
	if field(m, "spec", "paused") != true {
		t.Fatalf("paused not retained: %v", m["spec"])
	}
	// Not paused in the member and unset in the template: nothing to do.
	if r := handle(t, configv1alpha1.InterpreterOperationRetain, sampleWorkload, withObserved(sampleWorkload)); r.Patch != nil {
		t.Fatalf("patch %s, want none", r.Patch)
	}
	// Unpaused in the member wins over paused in the template.
	m = applied(t, observed, handle(t, configv1alpha1.InterpreterOperationRetain, observed, withObserved(sampleWorkload)))
	if field(m, "spec", "paused") != false {
		t.Fatalf("paused = %v, want false from the member", field(m, "spec", "paused"))
	}
	if r := handle(t, configv1alpha1.InterpreterOperationRetain, sampleWorkload); r.Successful || r.Status.Code != 400 {
		t.Fatalf("Retain without observedObject = %+v", r)
	}
}

func TestAggregateStatus(t *testing.T) {
	items := []workv1alpha2.AggregatedStatusItem{
		{ClusterName: "member1", Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":2}`)}},
		{ClusterName: "member2"},
		{ClusterName: "member3", Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":4,"conditions":[]}`)}},
	}
	r := handle(t, configv1alpha1.InterpreterOperationAggregateStatus, sampleWorkload, func(r *interpreter.Request) { r.AggregatedStatus = items })
	if m := applied(t, sampleWorkload, r); field(m, "status", "readyReplicas") != float64(6) {
		t.Fatalf("status = %v", m["status"])
	}
	bad := []workv1alpha2.AggregatedStatusItem{{ClusterName: "m", Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":"x"}`)}}}
	r = handle(t, configv1alpha1.InterpreterOperationAggregateStatus, sampleWorkload, func(r *interpreter.Request) { r.AggregatedStatus = bad })
	if r.Successful || !strings.Contains(r.Status.Message, "cluster m") {
		t.Fatalf("bad status = %+v", r.Status)
	}
}

func TestInterpretHealth(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   bool
	}{{`{"readyReplicas":2}`, false}, {`{"readyReplicas":3}`, true}, {`{"readyReplicas":4}`, true}, {`{}`, false}} {
		obj := strings.Replace(sampleWorkload, `"status":{"readyReplicas":2}`, `"status":`+tc.status, 1)
		r := handle(t, configv1alpha1.InterpreterOperationInterpretHealth, obj)
		if succeeded(t, r); r.Healthy == nil || *r.Healthy != tc.want {
			t.Errorf("status %s: healthy = %v, want %v", tc.status, r.Healthy, tc.want)
		}
	}
}

func TestInterpretStatus(t *testing.T) {
	r := handle(t, configv1alpha1.InterpreterOperationInterpretStatus, sampleWorkload)
	if succeeded(t, r); r.RawStatus == nil || string(r.RawStatus.Raw) != `{"readyReplicas":2}` {
		t.Fatalf("rawStatus = %v", r.RawStatus)
	}
}

func TestInterpretDependency(t *testing.T) {
	r := handle(t, configv1alpha1.InterpreterOperationInterpretDependency, sampleWorkload)
	succeeded(t, r)
	want := []configv1alpha1.DependentObjectReference{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "nginx-conf"},
		{APIVersion: "v1", Kind: "Secret", Namespace: "default", Name: "db-secret"},
	}
	if len(r.Dependencies) != len(want) || r.Dependencies[0] != want[0] || r.Dependencies[1] != want[1] {
		t.Fatalf("dependencies = %+v", r.Dependencies)
	}
}

func TestHandleErrors(t *testing.T) {
	if r := handle(t, configv1alpha1.InterpreterOperationPrune, sampleWorkload); r.Successful || r.Status.Code != 400 || !strings.Contains(r.Status.Message, `"Prune" is not supported`) {
		t.Errorf("Prune = %+v", r.Status)
	}
	if r := handle(t, configv1alpha1.InterpreterOperationInterpretHealth, `{"apiVersion":"workload.example.io/v1alpha1","kind":"Workload","spec":{"replicas":"x"}}`); r.Successful || r.Status.Code != 400 {
		t.Errorf("invalid object = %+v", r.Status)
	}
	if r := handle(t, configv1alpha1.InterpreterOperationInterpretHealth, ""); r.Successful || !strings.Contains(r.Status.Message, "no content") {
		t.Errorf("no object = %+v", r.Status)
	}
	if r := handle(t, configv1alpha1.InterpreterOperationReviseReplica, sampleWorkload); r.Successful {
		t.Errorf("ReviseReplica without replicas = %+v", r.Status)
	}
}

func TestWorkloadDeepCopy(t *testing.T) {
	w := &Workload{}
	if err := json.Unmarshal([]byte(sampleWorkload), w); err != nil {
		t.Fatal(err)
	}
	w.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}
	c := w.DeepCopyObject().(*Workload)
	*c.Spec.Replicas = 9
	c.Spec.Template.Spec.Containers[0].Name = "changed"
	c.Status.Conditions[0].Type = "changed"
	c.Labels["app"] = "changed"
	if *w.Spec.Replicas != 3 || w.Spec.Template.Spec.Containers[0].Name != "nginx" || w.Status.Conditions[0].Type != "Ready" || w.Labels["app"] != "nginx" {
		t.Fatalf("copy shares memory with the original: %+v", w)
	}
}
