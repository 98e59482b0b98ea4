package kube_test

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
)

// A template passed on untouched is read in place; one the script opened
// (it read a member) goes through its canonical JSON. Where the canonical
// path succeeds, reading in place must give the same result. It may
// succeed where the canonical path fails: it reads only the fields it
// needs, so a field of the wrong type elsewhere (which no API server
// serves for a schema'd template) is not an error there, as in the native
// layer.
var (
	inPlaceScript = luavm.NewScript("in-place", `local kube = require("kube")
function GetReplicas(obj) return 1, kube.accuratePodRequirements(obj.spec.template) end
function GetDependencies(obj) return kube.getPodDependencies(obj.spec.template, obj.metadata.namespace) end`)
	canonicalScript = luavm.NewScript("canonical", `local kube = require("kube")
local function opened(obj)
  local t = obj.spec.template
  local _ = t.metadata
  return t
end
function GetReplicas(obj) return 1, kube.accuratePodRequirements(opened(obj)) end
function GetDependencies(obj) return kube.getPodDependencies(opened(obj), obj.metadata.namespace) end`)
)

// compareTemplatePaths fails t when the two paths disagree on a Deployment
// with template tmpl.
func compareTemplatePaths(t *testing.T, vm *lua.VM, tmpl any) {
	t.Helper()
	newObj := func() *unstructured.Unstructured {
		// Each call gets its own copy, as controllers pass fresh objects.
		data, err := json.Marshal(map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "prod"},
			"spec":     map[string]any{"replicas": 1, "template": tmpl},
		})
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			t.Skip("not an object the API server would serve:", err)
		}
		return u
	}
	_, fastReq, fastErr := vm.GetReplicas(ctx, inPlaceScript, newObj())
	_, slowReq, slowErr := vm.GetReplicas(ctx, canonicalScript, newObj())
	if fastErr != nil && slowErr == nil {
		t.Fatalf("template %s: accuratePodRequirements in place %v, canonical %s", toJSON(t, tmpl), fastErr, toJSON(t, slowReq))
	}
	if slowErr == nil && (toJSON(t, fastReq) != toJSON(t, slowReq) || !apiequality.Semantic.DeepEqual(fastReq, slowReq)) {
		t.Fatalf("template %s: accuratePodRequirements in place %s, canonical %s", toJSON(t, tmpl), toJSON(t, fastReq), toJSON(t, slowReq))
	}
	fastDeps, fastErr := vm.GetDependencies(ctx, inPlaceScript, newObj())
	slowDeps, slowErr := vm.GetDependencies(ctx, canonicalScript, newObj())
	if fastErr != nil && slowErr == nil {
		t.Fatalf("template %s: getPodDependencies in place %v, canonical %s", toJSON(t, tmpl), fastErr, toJSON(t, slowDeps))
	}
	if slowErr == nil && toJSON(t, fastDeps) != toJSON(t, slowDeps) {
		t.Fatalf("template %s: getPodDependencies in place %s, canonical %s", toJSON(t, tmpl), toJSON(t, fastDeps), toJSON(t, slowDeps))
	}
}

// Paths in a pod template where odd values change what is read, and the
// odd values.
var (
	templatePaths = []string{
		"spec", "spec.nodeSelector", "spec.nodeSelector.disk", "spec.tolerations", "spec.tolerations.0",
		"spec.tolerations.0.key", "spec.tolerations.0.tolerationSeconds", "spec.affinity", "spec.affinity.nodeAffinity",
		"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
		"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.0.matchExpressions",
		"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.0.matchExpressions.0.values",
		"spec.overhead", "spec.overhead.cpu", "spec.priorityClassName", "spec.serviceAccountName",
		"spec.containers", "spec.containers.0", "spec.containers.0.resources", "spec.containers.0.resources.requests",
		"spec.containers.0.resources.requests.cpu", "spec.containers.0.resources.limits",
		"spec.containers.0.resources.limits.memory", "spec.containers.0.envFrom", "spec.containers.0.envFrom.0.configMapRef",
		"spec.containers.0.envFrom.0.configMapRef.name", "spec.containers.0.env.0.valueFrom",
		"spec.containers.0.env.0.valueFrom.secretKeyRef", "spec.containers.0.env.0.valueFrom.secretKeyRef.name",
		"spec.initContainers", "spec.initContainers.0.resources.requests", "spec.volumes", "spec.volumes.0",
		"spec.volumes.0.persistentVolumeClaim", "spec.volumes.0.persistentVolumeClaim.claimName", "spec.volumes.1.secret",
		"spec.volumes.1.secret.secretName", "spec.imagePullSecrets", "spec.ephemeralContainers",
	}
	oddValues = []func() any{
		func() any { return nil },
		func() any { return map[string]any{} },
		func() any { return []any{} },
		func() any { return []any{map[string]any{}} },
		func() any { return []any{nil} },
		func() any { return "" },
		func() any { return "x" },
		func() any { return "1" },
		func() any { return int64(2) },
		func() any { return 1.5 },
		func() any { return true },
		func() any { return map[string]any{"name": "a"} },
		func() any { return []any{map[string]any{"name": "b"}} },
		func() any { return map[string]any{"cpu": nil} },
		func() any { return map[string]any{"cpu": "1", "memory": int64(3)} },
		func() any { return map[string]any{"key": "k", "operator": "In", "values": []any{}} },
	}
)

// setPath sets the dotted path in tmpl to v, creating objects on the way
// (a number indexes a list, grown as needed).
func setPath(tmpl map[string]any, path string, v any) {
	var cur any = tmpl
	keys := strings.Split(path, ".")
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[k] = v
				return
			}
			next, ok := c[k].(map[string]any)
			if list, isList := c[k].([]any); isList && len(list) > 0 {
				cur = list
				continue
			}
			if !ok {
				if isIndex(keys[i+1]) {
					l := []any{map[string]any{}}
					c[k] = l
					cur = l
					continue
				}
				next = map[string]any{}
				c[k] = next
			}
			cur = next
		case []any:
			idx := int(k[0] - '0')
			if idx >= len(c) {
				return // lists are not grown: the path is simply absent
			}
			if last {
				c[idx] = v
				return
			}
			if _, ok := c[idx].(map[string]any); !ok {
				c[idx] = map[string]any{}
			}
			cur = c[idx]
		default:
			return
		}
	}
}

func isIndex(k string) bool { return len(k) == 1 && k[0] >= '0' && k[0] <= '9' }

func baseTemplate(t testing.TB) map[string]any {
	var d map[string]any
	if err := json.Unmarshal([]byte(deployment), &d); err != nil {
		t.Fatal(err)
	}
	tmpl := d["spec"].(map[string]any)["template"].(map[string]any)
	spec := tmpl["spec"].(map[string]any)
	spec["affinity"] = map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
		"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}}},
	}}}
	spec["overhead"] = map[string]any{"cpu": "10m"}
	return tmpl
}

// TestTemplateInPlaceMatchesCanonical mutates a full template at random
// paths with odd values (empty, null, wrong types) and compares the paths.
func TestTemplateInPlaceMatchesCanonical(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	rng := rand.New(rand.NewSource(15))
	compareTemplatePaths(t, vm, baseTemplate(t))
	for i := 0; i < 1500; i++ {
		tmpl := baseTemplate(t)
		for n := 1 + rng.Intn(3); n > 0; n-- {
			setPath(tmpl, templatePaths[rng.Intn(len(templatePaths))], oddValues[rng.Intn(len(oddValues))]())
		}
		compareTemplatePaths(t, vm, tmpl)
	}
}

// FuzzTemplateInPlace compares the paths on arbitrary templates.
func FuzzTemplateInPlace(f *testing.F) {
	base, err := json.Marshal(baseTemplate(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(base))
	for _, seed := range []string{
		`{}`, `{"spec":null}`, `{"spec":{}}`, `{"spec":{"nodeSelector":{}}}`, `{"spec":{"tolerations":[]}}`,
		`{"spec":{"tolerations":[{}],"nodeSelector":{"a":"b"}}}`, `{"spec":{"tolerations":[null],"nodeSelector":{"a":"b"}}}`,
		`{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{}}}}}`,
		`{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[]}]}}}}}`,
		`{"spec":{"containers":[{"resources":{"requests":{"cpu":null},"limits":{"cpu":"2"}}}]}}`,
		`{"spec":{"containers":[{"resources":{"requests":{"cpu":1.5e3},"limits":{"memory":2}}}]}}`,
		`{"spec":{"containers":[{"resources":{"requests":{}}}],"overhead":{}}}`,
		`{"spec":{"volumes":[{"configMap":{}},{"secret":{"secretName":""}},{"persistentVolumeClaim":null}]}}`,
		`{"spec":{"serviceAccountName":"default","priorityClassName":7}}`,
		`{"spec":{"containers":[{"envFrom":[{"configMapRef":{}},{"secretRef":{"name":"s"}}]}]}}`,
		`{"spec":{"containers":"x"}}`, `{"spec":[]}`, `[]`, `"x"`,
	} {
		f.Add(seed)
	}
	vm := lua.New(luavm.Options{})
	f.Cleanup(vm.Close)
	fields := podTemplateFieldNames()
	f.Fuzz(func(t *testing.T, data string) {
		var tmpl any
		if json.Unmarshal([]byte(data), &tmpl) != nil || hasCaseVariant(tmpl, fields) {
			return
		}
		compareTemplatePaths(t, vm, tmpl)
	})
}

// podTemplateFieldNames returns the JSON field names of PodTemplateSpec
// and every type under it.
func podTemplateFieldNames() []string {
	seen := map[reflect.Type]bool{}
	names := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				names[name] = true
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(corev1.PodTemplateSpec{}))
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	return out
}

// hasCaseVariant reports whether v holds a key that Go's JSON decoding
// would take for a field whose name it spells with other letter cases
// ("ContAiners"): reading in place matches names exactly, a documented
// difference.
func hasCaseVariant(v any, fields []string) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			for _, f := range fields {
				if k != f && strings.EqualFold(k, f) {
					return true
				}
			}
			if hasCaseVariant(e, fields) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasCaseVariant(e, fields) {
				return true
			}
		}
	}
	return false
}
