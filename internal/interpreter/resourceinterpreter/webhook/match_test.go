package webhook

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

type ops = []configv1alpha1.InterpreterOperation

func rule(o ops, groups, versions, kinds []string) configv1alpha1.RuleWithOperations {
	return configv1alpha1.RuleWithOperations{Operations: o, APIGroups: groups, APIVersions: versions, Kinds: kinds}
}

func TestMatching(t *testing.T) {
	const (
		replica = configv1alpha1.InterpreterOperationInterpretReplica
		retain  = configv1alpha1.InterpreterOperationRetain
		health  = configv1alpha1.InterpreterOperationInterpretHealth
	)
	deploy := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	wl := schema.GroupVersionKind{Group: "workload.example.io", Version: "v1alpha1", Kind: "Workload"}
	wl2 := schema.GroupVersionKind{Group: "workload.example.io", Version: "v1alpha2", Kind: "Workload"}
	u := "https://127.0.0.1:1/"
	configs := []configv1alpha1.ResourceInterpreterWebhookConfiguration{
		// Listed first but sorts after "a-exact" and "a/…" by uid.
		config("z", urlHook("all", u, nil, rule(ops{"*"}, []string{"*"}, []string{"*"}, []string{"*"}))),
		config("a",
			urlHook("exact", u, nil, rule(ops{replica}, []string{"apps"}, []string{"v1"}, []string{"Deployment"})),
			urlHook("core", u, nil, rule(ops{retain, health}, []string{""}, []string{"v1"}, []string{"Pod"})),
			urlHook("empty-kinds", u, nil, rule(ops{"*"}, []string{"*"}, []string{"*"}, nil)),
		),
		config("a-b", urlHook("any-version", u, nil, rule(ops{health}, []string{"workload.example.io"}, []string{"*"}, []string{"Workload"}))),
		config("m", urlHook("many-rules", u, nil,
			rule(nil, []string{"*"}, []string{"*"}, []string{"*"}),
			rule(ops{retain}, []string{"workload.example.io"}, []string{"v1alpha1"}, []string{"Workload", "Other"}))),
	}
	i := New(Options{})
	i.LoadConfig(configs)
	cases := []struct {
		gvk  schema.GroupVersionKind
		op   configv1alpha1.InterpreterOperation
		want string
	}{
		// "a-b/…" < "a/…" < "m/…" < "z/…" byte-wise ('-' < '/').
		{deploy, replica, "a/exact"},
		{deploy, retain, "z/all"},
		{pod, retain, "a/core"},
		{pod, health, "a/core"},
		{pod, replica, "z/all"},
		{wl, health, "a-b/any-version"},
		{wl2, health, "a-b/any-version"},
		{wl, retain, "m/many-rules"},
		{wl2, retain, "z/all"},
		{schema.GroupVersionKind{Group: "x", Version: "y", Kind: "Z"}, configv1alpha1.InterpreterOperationPrune, "z/all"},
	}
	for _, tc := range cases {
		h, err := i.hookFor(tc.gvk, tc.op)
		if err != nil || h.uid != tc.want {
			t.Errorf("hook for %s %s = %v, %v; want %s", tc.gvk, tc.op, h, err, tc.want)
		}
	}

	// Without the catch-all, empty lists never match and exact values must be exact.
	i.LoadConfig(configs[1:])
	for _, tc := range []struct {
		gvk schema.GroupVersionKind
		op  configv1alpha1.InterpreterOperation
	}{
		{deploy, retain}, {pod, replica}, {wl2, retain},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "deployment"}, replica},
		{schema.GroupVersionKind{Group: "apps", Version: "v1beta1", Kind: "Deployment"}, replica},
	} {
		if ok, err := i.HookEnabled(tc.gvk, tc.op); ok || err != nil {
			t.Errorf("HookEnabled(%s, %s) = %v, %v; want false", tc.gvk, tc.op, ok, err)
		}
	}
	if ok, err := i.HookEnabled(deploy, replica); !ok || err != nil {
		t.Errorf("HookEnabled(Deployment, InterpretReplica) = %v, %v", ok, err)
	}
}

// TestPrecedenceCallsOnlyFirst: of two matching webhooks only the one with
// the smaller uid is called.
func TestPrecedenceCallsOnlyFirst(t *testing.T) {
	answer := func(n int32) func(interpreter.Request) interpreter.Response {
		return func(interpreter.Request) interpreter.Response {
			r := interpreter.Succeeded("")
			r.Replicas = ptr.To(n)
			return r
		}
	}
	first, _ := sdkServer(t, answer(1))
	second, rec := sdkServer(t, answer(2))
	i := New(Options{})
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{
		config("b", urlHook("hook", second.URL, second.CA.PEM, allOps())),
		config("a", urlHook("hook", first.URL, first.CA.PEM, allOps())),
	})
	n, _, err := i.GetReplicas(testContext(t), workload())
	if err != nil || n != 1 {
		t.Fatalf("GetReplicas = %d, %v; want 1 from a/hook", n, err)
	}
	if _, body := rec.last(); body != nil {
		t.Fatal("b/hook was called")
	}
}
