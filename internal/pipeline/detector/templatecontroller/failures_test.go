package templatecontroller

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook"
	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// flakyInterpreter fails with err until err is nil, then answers 7 replicas.
type flakyInterpreter struct {
	mu  sync.Mutex
	err error
}

func (f *flakyInterpreter) HookEnabled(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) bool {
	return true
}

func (f *flakyInterpreter) GetComponents(context.Context, *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	return nil, errors.New("no components")
}

func (f *flakyInterpreter) GetReplicas(context.Context, *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return 7, nil, f.err
}

// TestInterpreterFailureRetryIsCapped: a template whose
// replicas the interpreter fails to answer is retried with the controller's
// growing backoff, capped at InterpreterRetryCap, so it converges within
// the cap once the webhook answers again (it took ~75 s with the uncapped
// backoff). The failure is logged once per interval, naming the webhook,
// with bounded text; a success resets backoff and log.
func TestInterpreterFailureRetryIsCapped(t *testing.T) {
	ctx, lines := capturingContext(t)
	interp := &flakyInterpreter{err: fmtCallError()}
	r, key := claimedTemplateReconciler(t, interp)

	var last time.Duration
	for i := range 30 {
		res, err := r.Reconcile(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter <= 0 || res.RequeueAfter > r.opts.InterpreterRetryCap {
			t.Fatalf("attempt %d: retry in %s, want (0, %s]", i, res.RequeueAfter, r.opts.InterpreterRetryCap)
		}
		last = res.RequeueAfter
	}
	if last != r.opts.InterpreterRetryCap {
		t.Errorf("after 30 failures the retry delay is %s, want the cap %s", last, r.opts.InterpreterRetryCap)
	}
	if uncapped := r.backoff.When(key); uncapped <= r.opts.InterpreterRetryCap {
		t.Fatalf("the controller's own backoff (%s) would not exceed the cap: the test proves nothing", uncapped)
	}
	got := lines()
	if len(got) != 1 {
		t.Fatalf("logged %d lines for 30 failures within the interval, want 1: %q", len(got), got)
	}
	for _, want := range []string{`"msg"="resource interpreter failed, will retry"`, `"template"={"name"="web" "namespace"="default"}`,
		`"webhook"="cfg/hook.example.io"`, `"operation"="InterpretReplica"`, "... [truncated "} {
		if !strings.Contains(got[0], want) {
			t.Errorf("log line lacks %s:\n%.600s", want, got[0])
		}
	}
	if len(got[0]) > 2*boundedtext.DefaultLimit+512 {
		t.Errorf("log line of %d bytes: the webhook's message is not bounded", len(got[0]))
	}

	interp.mu.Lock()
	interp.err = nil
	interp.mu.Unlock()
	if res, err := r.Reconcile(ctx, key); err != nil || res.RequeueAfter != 0 {
		t.Fatalf("reconcile once the interpreter answers: %+v, %v", res, err)
	}
	if r.backoff.NumRequeues(key) != 0 {
		t.Error("success did not reset the backoff")
	}
	interp.mu.Lock()
	interp.err = fmtCallError()
	interp.mu.Unlock()
	if res, _ := r.Reconcile(ctx, key); res.RequeueAfter <= 0 {
		t.Fatal("failure after recovery not retried")
	}
	if n := len(lines()); n != 2 {
		t.Errorf("a new outage after a success must be logged again: %d lines", n)
	}
}

// fmtCallError is a webhook failure with a 100 KB message.
func fmtCallError() error {
	return &webhook.CallError{Webhook: "cfg/hook.example.io", Err: errors.New("webhook down: " + strings.Repeat("x", 100<<10))}
}

// capturingContext carries a logger that names the template as the
// controller's LogConstructor does, and returns what it logged.
func capturingContext(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(_, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{}).WithValues("template", klog.KRef("default", "web"))
	return log.IntoContext(context.Background(), logger), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

// claimedTemplateReconciler is a template controller whose cache holds
// Deployment default/web claimed by PropagationPolicy default/bench (which
// the fake client serves), with interp as its interpreter.
func claimedTemplateReconciler(t *testing.T, interp ReplicaInterpreter) (*Reconciler, Key) {
	t.Helper()
	c, err := templatecache.New(nil, nil, nil, templatecache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	inf, err := c.Watch(gvk, templatecache.Resource{GVR: gvk.GroupVersion().WithResource("deployments"), Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := templatetest.DecodedDeployment(t, "web")
	obj, err := templatecache.Transform(gvk)(tmpl.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.GetStore().Add(obj); err != nil {
		t.Fatal(err)
	}
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bench",
			Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: tmpl.GetLabels()[names.PropagationPolicyPermanentIDLabel]}},
		Spec: policyv1alpha1.PropagationSpec{ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}}},
	}
	cl := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(pol).Build()
	r := New(Deps{Client: cl, Templates: c, Policies: policyindex.New(), Interpreter: interp, Recorder: record.NewFakeRecorder(100)}, Options{})
	return r, Key{GVK: gvk, Namespace: "default", Name: "web"}
}
