package customization

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The benchmarks compare the compiled-script cache (Propel) with compiling
// the script on every call (Karmada's DoString).

const benchGetReplicas = `local kube = require("kube")
function GetReplicas(obj)
  local replica = obj.spec.replicas
  if replica == nil then
    replica = 1
  end
  local requirement = kube.accuratePodRequirements(obj.spec.template)
  return replica, requirement
end`

const benchAggregateStatus = `function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then
    return desiredObj
  end
  if desiredObj.status == nil then
    desiredObj.status = {}
  end
  local generation = desiredObj.metadata.generation or 0
  local replicas, ready, available, updated, latest = 0, 0, 0, 0, 0
  for i = 1, #statusItems do
    local s = statusItems[i].status
    if s ~= nil then
      replicas = replicas + (s.replicas or 0)
      ready = ready + (s.readyReplicas or 0)
      available = available + (s.availableReplicas or 0)
      updated = updated + (s.updatedReplicas or 0)
      if s.observedGeneration ~= nil and s.generation ~= nil and s.observedGeneration >= s.generation
        and (s.resourceTemplateGeneration or 0) >= generation then
        latest = latest + 1
      end
    end
  end
  if latest == #statusItems then
    desiredObj.status.observedGeneration = generation
  end
  desiredObj.status.replicas = replicas
  desiredObj.status.readyReplicas = ready
  desiredObj.status.availableReplicas = available
  desiredObj.status.updatedReplicas = updated
  return desiredObj
end`

const benchWorkload = `{
  "apiVersion": "example.io/v1", "kind": "Workload",
  "metadata": {"name": "web", "namespace": "prod", "generation": 3, "labels": {"app": "web"}},
  "spec": {
    "replicas": 3,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "nodeSelector": {"disk": "ssd"},
        "containers": [{"name": "app", "image": "nginx:1.27", "ports": [{"containerPort": 80}],
          "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": "500m", "memory": "128Mi"}}}]
      }
    }
  },
  "status": {"observedGeneration": 2, "replicas": 3}
}`

func benchInterpreter(b *testing.B, disableCache bool) *Interpreter {
	vm := lua.New(luavm.Options{DisableCache: disableCache})
	b.Cleanup(vm.Close)
	i := New(Options{VM: vm})
	i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{ric("bench", configv1alpha1.CustomizationRules{
		ReplicaResource:   &configv1alpha1.ReplicaResourceRequirement{LuaScript: benchGetReplicas},
		StatusAggregation: &configv1alpha1.StatusAggregation{LuaScript: benchAggregateStatus},
	})})
	return i
}

func benchObject(b *testing.B) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(benchWorkload)); err != nil {
		b.Fatal(err)
	}
	return u
}

func BenchmarkGetReplicas(b *testing.B) {
	for _, mode := range []struct {
		name    string
		disable bool
	}{{"cached", false}, {"uncached", true}} {
		b.Run(mode.name, func(b *testing.B) {
			i := benchInterpreter(b, mode.disable)
			obj := benchObject(b)
			measure(b, func() {
				r, req, err := i.GetReplicas(ctx, obj)
				if err != nil || r != 3 || req == nil {
					b.Fatalf("%d %v %v", r, req, err)
				}
			})
		})
	}
}

func BenchmarkAggregateStatus(b *testing.B) {
	items := make([]workv1alpha2.AggregatedStatusItem, 10)
	for c := range items {
		items[c] = workv1alpha2.AggregatedStatusItem{
			ClusterName: fmt.Sprintf("member%d", c+1), Applied: true, Health: workv1alpha2.ResourceHealthy,
			Status: &k8sruntime.RawExtension{Raw: []byte(`{"generation":2,"resourceTemplateGeneration":3,"observedGeneration":2,` +
				`"replicas":3,"readyReplicas":3,"availableReplicas":3,"updatedReplicas":3}`)},
		}
	}
	for _, mode := range []struct {
		name    string
		disable bool
	}{{"cached", false}, {"uncached", true}} {
		b.Run(mode.name, func(b *testing.B) {
			i := benchInterpreter(b, mode.disable)
			obj := benchObject(b)
			measure(b, func() {
				out, err := i.AggregateStatus(ctx, obj, items)
				if err != nil || out == nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// measure runs op b.N times and also reports the CPU time of the running
// thread per operation ("cpu-ns/op"), which, unlike ns/op, does not grow
// when other processes compete for the CPU.
func measure(b *testing.B, op func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	start := threadCPU()
	for n := 0; n < b.N; n++ {
		op()
	}
	b.ReportMetric(float64(threadCPU()-start)/float64(b.N), "cpu-ns/op")
}

// threadCPU is the CPU time (user + system) of the calling thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rusageThread is Linux's RUSAGE_THREAD.
const rusageThread = 1
