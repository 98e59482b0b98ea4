package binding

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// testEnv is a control plane running the binding controllers.
type testEnv struct {
	*harness.Env
	// writes counts the controllers' writes to the control plane.
	writes harness.WriteCounter
	rb     *reconciler
}

func startEnv(t *testing.T) *testEnv {
	t.Helper()
	e := newEnv(t, "member1", "member2")
	e.startManager(t, false, nil)
	return e
}

// newEnv starts a control plane with the given Clusters and their
// execution namespaces (what the cluster controller would create).
func newEnv(t *testing.T, clusters ...string) *testEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts a real API server")
	}
	e := &testEnv{Env: harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}})}
	for _, name := range clusters {
		e.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.ExecutionSpace(name)}})
		e.create(t, &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}})
	}
	return e
}

// startManager runs the binding controllers in a manager whose writes are
// counted; tune adjusts its rest.Config. With cachedTemplates, templates
// are read through the manager's cache, as production reads them through
// the detector's informers; otherwise with the dynamic-client fallback.
func (e *testEnv) startManager(t *testing.T, cachedTemplates bool, tune func(*rest.Config)) {
	t.Helper()
	cfg := e.writes.Count(e.ControllerManagerConfig(), "karmada")
	if tune != nil {
		tune(cfg)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		// Each test runs its own manager with the same controllers.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	deps := Deps{Interpreter: resourceinterpreter.New(native.New())}
	if cachedTemplates {
		deps.Templates = CacheTemplateReader{mgr.GetCache()}
	}
	c, err := New(deps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := index.AddDefaultIndexes(context.Background(), mgr); err != nil {
		t.Fatal(err)
	}
	if err := c.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	e.rb = &reconciler{Deps: c.deps, kind: rbKind, writers: c.opts.WorkWriters}
	//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
	e.rb.Recorder = mgr.GetEventRecorderFor(rbKind.controllerName)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}
}

func (e *testEnv) create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := e.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

func (e *testEnv) work(ctx context.Context, cluster, name string) (*workv1alpha1.Work, error) {
	w := &workv1alpha1.Work{}
	return w, e.Client.Get(ctx, client.ObjectKey{Namespace: names.ExecutionSpace(cluster), Name: name}, w)
}

// gone reports whether the Work is deleted; it plays the execution
// controller, which releases its finalizer once a Work is terminating.
func (e *testEnv) gone(ctx context.Context, cluster, name string) (bool, error) {
	w, err := e.work(ctx, cluster, name)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil || w.DeletionTimestamp.IsZero() {
		return false, err
	}
	w.Finalizers = nil
	return false, client.IgnoreNotFound(e.Client.Update(ctx, w))
}

func sampleDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	shared := harness.SharedDir()
	if shared == "" {
		t.Skip("../shared is absent: the Karmada samples cannot be read")
	}
	data, err := os.ReadFile(filepath.Join(shared, "reference", "karmada-samples", "nginx", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := yaml.UnmarshalStrict(data, d); err != nil {
		t.Fatal(err)
	}
	d.Namespace = "default"
	return d
}

func manifestReplicasAndImage(t *testing.T, w *workv1alpha1.Work) (int64, string) {
	t.Helper()
	m := manifestOf(t, w)
	replicas, _, _ := unstructured.NestedInt64(m.Object, "spec", "replicas")
	return replicas, containerImage(t, m)
}
