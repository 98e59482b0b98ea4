package lua

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	glua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/convert"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
)

const ric = "my-ric"

func newVM(t testing.TB, opts luavm.Options) *VM {
	t.Helper()
	vm := New(opts)
	t.Cleanup(vm.Close)
	return vm
}

// obj decodes a JSON object the way objects come from the API server.
func obj(t testing.TB, js string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(js)); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return u
}

func toJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// eval runs a Lua expression-producing script through ReflectStatus and
// returns the JSON of the table it returns: `return <expr>`.
func eval(t testing.TB, vm *VM, body string) (string, error) {
	t.Helper()
	s := luavm.NewScript(ric, "function ReflectStatus(obj)\n"+body+"\nend")
	raw, err := vm.ReflectStatus(context.Background(), s, obj(t, `{"kind":"X"}`))
	if err != nil {
		return "", err
	}
	return string(raw.Raw), nil
}

// mustEval is eval that fails the test on error.
func mustEval(t testing.TB, vm *VM, body string) string {
	t.Helper()
	out, err := eval(t, vm, body)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return out
}

func wantErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

var deployment = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "prod", "labels": {"app": "web"}},
  "spec": {
    "replicas": 3,
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "nodeSelector": {"disk": "ssd"},
        "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "serviceAccountName": "web-sa",
        "containers": [
          {"name": "app", "image": "nginx",
           "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"memory": "128Mi", "nvidia.com/gpu": "1"}},
           "envFrom": [{"configMapRef": {"name": "web-config"}}],
           "env": [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "web-token", "key": "t"}}}]},
          {"name": "sidecar", "image": "envoy", "resources": {"requests": {"cpu": "100m"}}}
        ],
        "initContainers": [{"name": "init", "image": "busybox", "resources": {"requests": {"cpu": "1", "memory": "32Mi"}}}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}},
                    {"name": "cert", "secret": {"secretName": "web-cert"}}]
      }
    }
  }
}`

type runtimeRaw = runtime.RawExtension

// plainState returns a plain gopher-lua state (all libraries, no sandbox,
// no proxies) with a conversion state for its results: the reference the
// VM's results are compared with.
func plainState(t testing.TB) (*glua.LState, *convert.State) {
	t.Helper()
	L := glua.NewState()
	t.Cleanup(L.Close)
	return L, convert.NewState(L)
}

// plainTables converts what a JSON document decodes to into tables built
// member by member with RawSetString, keys in sorted order, as Karmada's
// conversion would (nulls dropped).
func plainTables(L *glua.LState, v any) glua.LValue {
	switch t := v.(type) {
	case nil:
		return glua.LNil
	case bool:
		return glua.LBool(t)
	case string:
		return glua.LString(t)
	case float64:
		return glua.LNumber(t)
	case int64:
		return glua.LNumber(t)
	case []any:
		tbl := L.NewTable()
		for _, e := range t {
			if e != nil {
				tbl.Append(plainTables(L, e))
			}
		}
		return tbl
	case map[string]any:
		tbl := L.NewTable()
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if t[k] != nil {
				tbl.RawSetString(k, plainTables(L, t[k]))
			}
		}
		return tbl
	}
	panic(fmt.Sprintf("plainTables: %T", v))
}

// luaValue evaluates a Lua expression in L.
func reqLen(vm *VM) int {
	n, _ := vm.memo.Len()
	return n
}

// podTemplate returns the deployment's template as the native code sees it.
func podTemplate(t *testing.T) *corev1.PodTemplateSpec {
	var d struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(deployment), &d); err != nil {
		t.Fatal(err)
	}
	return &d.Spec.Template
}
