package kube_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
)

// The module is tested through the operations layer, as scripts use it.

const ric = "my-ric"

var ctx = context.Background()

func newVM(t testing.TB, opts luavm.Options) *lua.VM {
	t.Helper()
	vm := lua.New(opts)
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

// eval runs body as ReflectStatus and returns the JSON of its result.
func eval(t testing.TB, vm *lua.VM, body string) (string, error) {
	t.Helper()
	s := luavm.NewScript(ric, "function ReflectStatus(obj)\n"+body+"\nend")
	raw, err := vm.ReflectStatus(ctx, s, obj(t, `{"kind":"X"}`))
	if err != nil {
		return "", err
	}
	return string(raw.Raw), nil
}

func mustEval(t testing.TB, vm *lua.VM, body string) string {
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
