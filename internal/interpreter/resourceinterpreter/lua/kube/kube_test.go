package kube_test

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
)

func TestKubeResourceAdd(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	cases := map[string]string{
		`kube.resourceAdd("1Gi", "512Mi")`:        "1536Mi",
		`kube.resourceAdd("100m", "1")`:           "1100m",
		`kube.resourceAdd()`:                      "0",
		`kube.resourceAdd(nil, "2", nil)`:         "2",
		`kube.resourceAdd(nil, "500m", "500m")`:   "1",
		`kube.resourceAdd("1k", "1Ki")`:           "2024",
		`kube.resourceAdd("0", "128Mi", "128Mi")`: "256Mi",
	}
	for expr, want := range cases {
		got := mustEval(t, vm, "local kube = require('kube')\nreturn {v = "+expr+"}")
		if got != `{"v":"`+want+`"}` {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
	_, err := eval(t, vm, "local kube = require('kube')\nreturn {v = kube.resourceAdd(\"1\", 2)}")
	wantErr(t, err, "my-ric:3:", "string expected, got number")
	_, err = eval(t, vm, "local kube = require('kube')\nreturn {v = kube.resourceAdd(\"1x1\")}")
	wantErr(t, err, "invalid quantity")
	// Unbounded, this built a number of a billion digits.
	for _, q := range []string{"1e999999999", "1e-999999999", "1e65"} {
		_, err = eval(t, vm, "local kube = require('kube')\nreturn {v = kube.resourceAdd(\"1\", \""+q+"\")}")
		wantErr(t, err, "my-ric:3:", "invalid quantity \""+q+"\": its exponent is beyond the limit of ±64")
	}
	if got := mustEval(t, vm, "local kube = require('kube')\nreturn {v = kube.resourceAdd(\"1e18\", \"1\")}"); got != `{"v":"1000000000000000001"}` {
		t.Errorf("got %s", got)
	}
}

func TestKubeGetResourceQuantity(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	got := mustEval(t, vm, `local kube = require("kube")
return {a = kube.getResourceQuantity("100m"), b = kube.getResourceQuantity("1Gi"), c = kube.getResourceQuantity(nil), d = kube.getResourceQuantity("2")}`)
	if want := `{"a":0.1,"b":1073741824,"c":0,"d":2}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	_, err := eval(t, vm, "local kube = require('kube')\nreturn {kube.getResourceQuantity('-1')}")
	wantErr(t, err, "non-negative")
	_, err = eval(t, vm, "local kube = require('kube')\nreturn {kube.getResourceQuantity('1', '2')}")
	wantErr(t, err, "getResourceQuantity only accepts one argument")
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

func TestKubeAccuratePodRequirementsIsNative(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	s := luavm.NewScript(ric, `local kube = require("kube")
function GetReplicas(obj)
  return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
end`)
	n, req, err := vm.GetReplicas(ctx, s, obj(t, deployment))
	if err != nil {
		t.Fatal(err)
	}
	want := native.AccuratePodRequirements(podTemplate(t))
	if n != 3 || want == nil || !apiequality.Semantic.DeepEqual(want, req) {
		t.Errorf("got %d %s, want %s", n, toJSON(t, req), toJSON(t, want))
	}
	// Sanity: init container cpu 1 beats 250m+100m; requests win over limits.
	if req.ResourceRequest.Cpu().String() != "1" || req.ResourceRequest.Memory().String() != "64Mi" {
		t.Errorf("unexpected requests %v", req.ResourceRequest)
	}

	// No claim, no resources: nil.
	got := mustEval(t, vm, `local kube = require("kube")
return {r = kube.accuratePodRequirements({spec = {containers = {{name = "a"}}}}) == nil}`)
	if got != `{"r":true}` {
		t.Errorf("empty template: %s", got)
	}
	_, err = eval(t, vm, "local kube = require('kube')\nreturn {kube.accuratePodRequirements({}, {})}")
	wantErr(t, err, "getPodRequirements only accepts one argument")
	_, err = eval(t, vm, "local kube = require('kube')\nreturn {kube.accuratePodRequirements('x')}")
	wantErr(t, err, "table expected")
}

func TestKubeGetPodDependenciesIsNative(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	s := luavm.NewScript(ric, `local kube = require("kube")
function GetDependencies(obj)
  return kube.getPodDependencies(obj.spec.template, obj.metadata.namespace)
end`)
	deps, err := vm.GetDependencies(ctx, s, obj(t, deployment))
	if err != nil {
		t.Fatal(err)
	}
	want := native.PodDependencies(podTemplate(t), "prod")
	if len(want) != 5 || !apiequality.Semantic.DeepEqual(want, deps) {
		t.Errorf("got %s, want %s", toJSON(t, deps), toJSON(t, want))
	}

	// A nil namespace defaults to "default"; no references gives nil.
	got := mustEval(t, vm, `local kube = require("kube")
local deps = kube.getPodDependencies({spec = {serviceAccountName = "sa"}}, nil)
return {ns = deps[1].namespace, kind = deps[1].kind, none = kube.getPodDependencies({spec = {}}, "x") == nil}`)
	if got != `{"kind":"ServiceAccount","none":true,"ns":"default"}` {
		t.Errorf("got %s", got)
	}
	_, err = eval(t, vm, "local kube = require('kube')\nreturn {kube.getPodDependencies({})}")
	wantErr(t, err, "getPodDependencies only accepts two argument")
}

// Under lua.WithPriorityClassName (Karmada's ResourceQuotaEstimate gate)
// accuratePodRequirements reports the pod's priorityClassName, and only
// then; a template with nothing else to require still gives nil.
func TestKubeAccuratePodRequirementsPriorityClassName(t *testing.T) {
	withPriority := strings.Replace(deployment, `"serviceAccountName"`, `"priorityClassName": "high", "serviceAccountName"`, 1)
	s := luavm.NewScript(ric, `local kube = require("kube")
function GetReplicas(obj)
  return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
end`)
	// The script edits the result, so it is decoded from the table.
	edited := luavm.NewScript(ric+"-edited", `local kube = require("kube")
function GetReplicas(obj)
  local req = kube.accuratePodRequirements(obj.spec.template)
  req.namespace = obj.metadata.namespace
  return obj.spec.replicas, req
end`)
	seen := `local kube = require("kube")
local r = kube.accuratePodRequirements({spec = {priorityClassName = "high", containers = {{name = "a", resources = {requests = {cpu = "1"}}}}}})
return {p = r.priorityClassName or "none",
        bare = kube.accuratePodRequirements({spec = {priorityClassName = "high", containers = {{name = "a"}}}}) == nil}`
	for _, tc := range []struct {
		name    string
		options []lua.Option
		want    string
		seen    string
	}{
		{name: "gate off", want: "", seen: `{"bare":true,"p":"none"}`},
		{name: "gate on", options: []lua.Option{lua.WithPriorityClassName()}, want: "high", seen: `{"bare":true,"p":"high"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := lua.New(luavm.Options{}, tc.options...)
			t.Cleanup(vm.Close)
			want := native.AccuratePodRequirements(podTemplate(t))
			want.PriorityClassName = tc.want
			for _, script := range []luavm.Script{s, edited, s} { // the third call answers from the memo
				_, req, err := vm.GetReplicas(ctx, script, obj(t, withPriority))
				if err != nil {
					t.Fatal(err)
				}
				w := want.DeepCopy()
				if script.Name == edited.Name {
					w.Namespace = "prod"
				}
				if !apiequality.Semantic.DeepEqual(w, req) {
					t.Errorf("%s: got %s, want %s", script.Name, toJSON(t, req), toJSON(t, w))
				}
			}
			if got := mustEval(t, vm, seen); got != tc.seen {
				t.Errorf("script sees %s, want %s", got, tc.seen)
			}
		})
	}
}

// The JSON form of a result is built only when read; a result the script
// nests untouched in what it returns is written from it after the script.
func TestKubeResultsWrittenUntouched(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	got := mustEval(t, vm, `local kube = require("kube")
local t = {spec = {serviceAccountName = "sa", nodeSelector = {disk = "ssd"}, containers = {{name = "a", resources = {requests = {cpu = "1"}}}}}}
return {r = kube.accuratePodRequirements(t), d = kube.getPodDependencies(t, "ns")}`)
	want := `{"d":[{"apiVersion":"v1","kind":"ServiceAccount","name":"sa","namespace":"ns"}],"r":{"nodeClaim":{"nodeSelector":{"disk":"ssd"}},"resourceRequest":{"cpu":"1"}}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
