package native_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	goruntime "runtime"

	"github.com/go-logr/logr"
	"golang.org/x/sys/unix"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/builtin"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook"
	"github.com/propel-mc/propel/internal/shared/compactcache"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// benchDeployment is a member Deployment as the API server returns it: it
// is the template for GetReplicas, GetDependencies and AggregateStatus and
// the member object for ReflectStatus and InterpretHealth.
const benchDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  generation: 3
  uid: 6f1c1d0e-1111-2222-3333-444455556666
  resourceVersion: "12345"
  creationTimestamp: "2024-01-01T00:00:00Z"
  labels: {app: nginx, propagationpolicy.karmada.io/permanent-id: 1b0c8a2e-aaaa-bbbb-cccc-ddddeeeeffff}
  annotations: {propagationpolicy.karmada.io/name: nginx-propagation, propagationpolicy.karmada.io/namespace: default, resourcetemplate.karmada.io/generation: "3"}
spec:
  replicas: 20
  selector: {matchLabels: {app: nginx}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      serviceAccountName: nginx
      nodeSelector: {kubernetes.io/os: linux}
      priorityClassName: web-high
      tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}]
      initContainers:
      - name: init
        image: busybox
        resources: {requests: {cpu: 200m, memory: 64Mi}}
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{containerPort: 80, protocol: TCP}]
        env:
        - {name: MODE, value: prod}
        - {name: TOKEN, valueFrom: {secretKeyRef: {name: nginx-token, key: token}}}
        envFrom: [{configMapRef: {name: nginx-env}}]
        volumeMounts: [{name: conf, mountPath: /etc/nginx}, {name: tls, mountPath: /etc/tls}]
        resources:
          requests: {cpu: 250m, memory: 128Mi}
          limits: {cpu: "1", memory: 256Mi, ephemeral-storage: 1Gi}
        readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 5}
      - name: sidecar
        image: envoy:1.30
        resources: {requests: {cpu: 100m, memory: 64Mi}}
      volumes:
      - {name: conf, configMap: {name: nginx-conf}}
      - {name: tls, secret: {secretName: nginx-tls}}
status:
  observedGeneration: 3
  replicas: 20
  updatedReplicas: 20
  readyReplicas: 20
  availableReplicas: 20
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable, message: ok, lastUpdateTime: "2024-01-01T00:00:00Z", lastTransitionTime: "2024-01-01T00:00:00Z"}
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable, message: ok, lastUpdateTime: "2024-01-01T00:00:00Z", lastTransitionTime: "2024-01-01T00:00:00Z"}
`

var ctx = context.Background()

// interpreter is the part of the layer and facade contracts benchmarked.
type interpreter interface {
	GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error)
	ReflectStatus(ctx context.Context, obj *unstructured.Unstructured) (*runtime.RawExtension, error)
	InterpretHealth(ctx context.Context, obj *unstructured.Unstructured) (bool, error)
	AggregateStatus(ctx context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error)
	GetDependencies(ctx context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error)
}

// facade is the interpreter as controllers get it: webhook, Lua
// customization and built-in layers (loaded, none hooking Deployments) in
// front of the native one.
func facade(b *testing.B) *resourceinterpreter.Interpreter {
	ctrllog.SetLogger(logr.Discard())
	wh := webhook.New(webhook.Options{})
	wh.LoadConfig(nil)
	lua := customization.New(customization.Options{})
	lua.LoadConfig(nil)
	layers, err := resourceinterpreter.Layers{
		Webhook: wh, Customization: lua, Builtin: builtin.New(customization.Options{}), Native: native.New(),
	}.Ordered(resourceinterpreter.PrecedencePropel)
	if err != nil {
		b.Fatal(err)
	}
	return resourceinterpreter.New(layers...)
}

func decode(b testing.TB, manifest string) *unstructured.Unstructured {
	raw, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		b.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		b.Fatal(err)
	}
	return u
}

// objectSet hands the benchmark its Deployments in one of three ways:
//   - same: one object every iteration (caches and memos always hit);
//   - fresh: a distinct object per iteration, decoded from its compact JSON
//     right before the call, outside the measurement, as every controller
//     does (templatecache and the member informers keep compact JSON and
//     decode on each Get; template status deep-copies the template);
//   - cold: distinct objects all decoded up front, so that by the time one
//     is used it has long left the CPU caches (a worst case no controller
//     path produces: the memory latency of every map read is paid).
type objectSet struct {
	mode string
	objs []*unstructured.Unstructured
	raw  [][]byte
}

var objectModes = []string{"same", "fresh", "cold"}

func newObjectSet(b *testing.B, mode string, n int) *objectSet {
	s := &objectSet{mode: mode}
	switch mode {
	case "same":
		s.objs = []*unstructured.Unstructured{decode(b, benchDeployment)}
	case "fresh":
		s.raw = make([][]byte, n)
		for i := range s.raw {
			u := decode(b, distinctManifest(i))
			raw, err := compactcache.AppendJSON(nil, u.Object)
			if err != nil {
				b.Fatal(err)
			}
			s.raw[i] = raw
		}
	case "cold":
		s.objs = make([]*unstructured.Unstructured, n)
		for i := range s.objs {
			s.objs[i] = decode(b, distinctManifest(i))
		}
	}
	return s
}

func distinctManifest(i int) string {
	return strings.Replace(benchDeployment, "name: nginx\n", fmt.Sprintf("name: nginx-%d\n", i), 1)
}

// object returns the object of iteration n; for fresh objects it decodes
// it with the benchmark's clocks stopped (see measure).
func (s *objectSet) object(b *testing.B, n int) *unstructured.Unstructured {
	switch s.mode {
	case "same":
		return s.objs[0]
	case "cold":
		return s.objs[n]
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(s.raw[n]); err != nil {
		b.Fatal(err)
	}
	return u
}

// memberStatuses are the reflected statuses of 10 members whose sum differs
// from benchDeployment's status.
func memberStatuses() []workv1alpha2.AggregatedStatusItem {
	items := make([]workv1alpha2.AggregatedStatusItem, 10)
	for i := range items {
		items[i] = workv1alpha2.AggregatedStatusItem{
			ClusterName: fmt.Sprintf("member%d", i+1), Applied: true, Health: workv1alpha2.ResourceHealthy,
			Status: &runtime.RawExtension{Raw: []byte(`{"generation":7,"resourceTemplateGeneration":3,"observedGeneration":7,` +
				`"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":1,"unavailableReplicas":1}`)},
		}
	}
	return items
}

// BenchmarkDeployment runs every benchmarked operation on a Deployment,
// through the native layer alone and through the facade, on the objects of
// each objectSet mode (same, fresh, cold). Besides
// ns/op it reports cpu-ns/op, the CPU time of the benchmark's thread, which
// other processes on a shared machine do not inflate.
func BenchmarkDeployment(b *testing.B) {
	items := memberStatuses()
	ops := []struct {
		name string
		run  func(b *testing.B, i interpreter, obj *unstructured.Unstructured)
	}{
		// Floor is the harness's own cost: reading the name, about what
		// the facade's layer lookup reads.
		{"Floor", func(b *testing.B, _ interpreter, obj *unstructured.Unstructured) {
			if obj.GetName() == "" {
				b.Fatal("no name")
			}
		}},
		{"GetReplicas", func(b *testing.B, i interpreter, obj *unstructured.Unstructured) {
			if n, reqs, err := i.GetReplicas(ctx, obj); err != nil || n != 20 || reqs == nil {
				b.Fatal(n, reqs, err)
			}
		}},
		{"ReflectStatus", func(b *testing.B, i interpreter, obj *unstructured.Unstructured) {
			if raw, err := i.ReflectStatus(ctx, obj); err != nil || raw == nil {
				b.Fatal(raw, err)
			}
		}},
		{"InterpretHealth", func(b *testing.B, i interpreter, obj *unstructured.Unstructured) {
			if ok, err := i.InterpretHealth(ctx, obj); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}},
		{"AggregateStatus10", func(b *testing.B, i interpreter, obj *unstructured.Unstructured) {
			if out, err := i.AggregateStatus(ctx, obj, items); err != nil || out == obj {
				b.Fatal("the status must change", err)
			}
		}},
		{"GetDependencies", func(b *testing.B, i interpreter, obj *unstructured.Unstructured) {
			if deps, err := i.GetDependencies(ctx, obj); err != nil || len(deps) != 5 {
				b.Fatal(deps, err)
			}
		}},
	}
	layers := []struct {
		name string
		new  func(b *testing.B) interpreter
	}{
		{"native", func(*testing.B) interpreter { return native.New() }},
		{"facade", func(b *testing.B) interpreter { return facade(b) }},
	}
	for _, op := range ops {
		for _, l := range layers {
			for _, mode := range objectModes {
				b.Run(op.name+"/"+l.name+"/"+mode, func(b *testing.B) {
					i := l.new(b)
					objs := newObjectSet(b, mode, b.N)
					measure(b, mode == "fresh", objs.object, func(obj *unstructured.Unstructured) { op.run(b, i, obj) })
				})
			}
		}
	}
}

// freshBatch is how many fresh objects are decoded at a time with the
// clocks stopped: reading the thread's CPU clock costs about a microsecond
// on this VM, too much to do around every call. 16 decoded Deployments
// (about 10 KB each) stay in the core's L2 cache.
const freshBatch = 16

// measure runs op b.N times on the objects next returns and reports
// cpu-ns/op besides ns/op. With paused, next runs with the clocks (wall,
// thread CPU and allocation counts) stopped, freshBatch objects at a time,
// so that only op is measured. The fixture's garbage is collected first,
// so that a collection of it does not land in the measured loop.
func measure(b *testing.B, paused bool, next func(b *testing.B, n int) *unstructured.Unstructured, op func(*unstructured.Unstructured)) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	goruntime.GC()
	b.ReportAllocs()
	var batch []*unstructured.Unstructured
	b.ResetTimer()
	var cpu time.Duration
	start := threadCPU()
	for n := 0; n < b.N; n++ {
		if !paused {
			op(next(b, n))
			continue
		}
		if n%freshBatch == 0 {
			cpu += threadCPU() - start
			b.StopTimer()
			batch = batch[:0]
			for k := n; k < min(n+freshBatch, b.N); k++ {
				batch = append(batch, next(b, k))
			}
			b.StartTimer()
			start = threadCPU()
		}
		op(batch[n%freshBatch])
	}
	cpu += threadCPU() - start
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// threadCPU is the CPU time of the calling thread, to the nanosecond
// (getrusage counts in scheduler ticks, too coarse for sub-microsecond
// operations run 2000 times).
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// BenchmarkDecodeCompact is what every controller path pays before an
// operation: decoding the Deployment's compact JSON (templatecache, member
// informers) into the unstructured object the interpreter takes.
func BenchmarkDecodeCompact(b *testing.B) {
	raw, err := compactcache.AppendJSON(nil, decode(b, benchDeployment).Object)
	if err != nil {
		b.Fatal(err)
	}
	measure(b, false, func(*testing.B, int) *unstructured.Unstructured { return nil }, func(*unstructured.Unstructured) {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			b.Fatal(err)
		}
	})
}
