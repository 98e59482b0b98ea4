package overrides

import (
	"errors"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func TestImageOverriderAllContainers(t *testing.T) {
	obj := object(t, deploymentYAML)
	o := policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{
		{Component: policyv1alpha1.Registry, Operator: policyv1alpha1.OverriderOpReplace, Value: "mirror.io"},
		{Component: policyv1alpha1.Tag, Operator: policyv1alpha1.OverriderOpAdd, Value: "-x"},
	}}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	list, _, _ := unstructuredSlice(obj.Object, "spec", "template", "spec", "containers")
	var containers []string
	for _, c := range list {
		containers = append(containers, c.(map[string]interface{})["image"].(string))
	}
	want := []string{"mirror.io/nginx:1.25-x", "mirror.io/envoyproxy/envoy:v1.30-x"}
	if !reflect.DeepEqual(containers, want) {
		t.Errorf("images = %v, want %v", containers, want)
	}
	inits, _, _ := unstructuredSlice(obj.Object, "spec", "template", "spec", "initContainers")
	if img := inits[0].(map[string]interface{})["image"]; img != "busybox:1.36" {
		t.Errorf("init container image changed to %v", img)
	}
}

func TestImageOverriderKinds(t *testing.T) {
	pod := object(t, `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: nginx}]}}`)
	cm := object(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {image: nginx}}`)
	o := policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{
		{Component: policyv1alpha1.Registry, Operator: policyv1alpha1.OverriderOpAdd, Value: "r.io"},
	}}
	if err := ApplyOverriders(pod, &o); err != nil {
		t.Fatal(err)
	}
	list, _, _ := unstructuredSlice(pod.Object, "spec", "containers")
	if img := list[0].(map[string]interface{})["image"]; img != "r.io/nginx" {
		t.Errorf("pod image = %v", img)
	}
	before := cm.DeepCopy()
	if err := ApplyOverriders(cm, &o); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cm, before) {
		t.Error("a ConfigMap was changed by an image overrider without predicate")
	}
}

func TestImageOverriderPredicate(t *testing.T) {
	obj := object(t, deploymentYAML)
	o := policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{{
		Predicate: &policyv1alpha1.ImagePredicate{Path: "/spec/template/spec/containers/1/image"},
		Component: policyv1alpha1.Repository, Operator: policyv1alpha1.OverriderOpReplace, Value: "istio/proxy",
	}}}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	list, _, _ := unstructuredSlice(obj.Object, "spec", "template", "spec", "containers")
	got := []interface{}{list[0].(map[string]interface{})["image"], list[1].(map[string]interface{})["image"]}
	if !reflect.DeepEqual(got, []interface{}{"nginx:1.25", "docker.io/istio/proxy:v1.30"}) {
		t.Errorf("images = %v", got)
	}
	if r, _, _ := unstructuredInt(obj.Object, "spec", "replicas"); r != 2 {
		t.Errorf("replicas after a JSON round trip = %v", r)
	}
}

func TestCommandArgsOverriders(t *testing.T) {
	obj := object(t, deploymentYAML)
	o := policyv1alpha1.Overriders{
		CommandOverrider: []policyv1alpha1.CommandArgsOverrider{
			{ContainerName: "nginx", Operator: policyv1alpha1.OverriderOpAdd, Value: []string{"nginx", "-g"}},
			{ContainerName: "sidecar", Operator: policyv1alpha1.OverriderOpRemove, Value: []string{"x"}},
		},
		ArgsOverrider: []policyv1alpha1.CommandArgsOverrider{
			{ContainerName: "nginx", Operator: policyv1alpha1.OverriderOpRemove, Value: []string{"--a"}},
			{ContainerName: "nginx", Operator: policyv1alpha1.OverriderOpAdd, Value: []string{"--c"}},
			{ContainerName: "missing", Operator: policyv1alpha1.OverriderOpAdd, Value: []string{"--z"}},
		},
	}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	list, _, _ := unstructuredSlice(obj.Object, "spec", "template", "spec", "containers")
	nginx, sidecar := list[0].(map[string]interface{}), list[1].(map[string]interface{})
	if !reflect.DeepEqual(nginx["command"], []interface{}{"nginx", "-g"}) {
		t.Errorf("nginx command = %v", nginx["command"])
	}
	if !reflect.DeepEqual(nginx["args"], []interface{}{"--b", "--c"}) {
		t.Errorf("nginx args = %v", nginx["args"])
	}
	// A remove on a container without command yields an empty command.
	if !reflect.DeepEqual(sidecar["command"], []interface{}{}) {
		t.Errorf("sidecar command = %#v", sidecar["command"])
	}
	if _, ok := sidecar["args"]; ok {
		t.Errorf("sidecar args set: %v", sidecar["args"])
	}
}

func TestLabelsOverriderKeyWithSlash(t *testing.T) {
	obj := object(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {"example.io/team": a}}}`)
	o := policyv1alpha1.Overriders{LabelsOverrider: []policyv1alpha1.LabelAnnotationOverrider{
		{Operator: policyv1alpha1.OverriderOpReplace, Value: map[string]string{"example.io/team": "b", "example.io/absent": "x"}},
		{Operator: policyv1alpha1.OverriderOpAdd, Value: map[string]string{"example.io/tier": "web"}},
	}}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"example.io/team": "b", "example.io/tier": "web"}
	if got := obj.GetLabels(); !reflect.DeepEqual(got, want) {
		t.Errorf("labels = %v, want %v", got, want)
	}
}

const configYAML = `
apiVersion: v1
kind: ConfigMap
metadata: {name: app, namespace: default}
data:
  config.yaml: |
    server:
      port: 80
      hosts: [a]
    debug: false
  config.json: '{"b":1,"a":{"x":true}}'
  plain: keep
  broken: "a: ["
`

func TestFieldOverriderYAML(t *testing.T) {
	obj := object(t, configYAML)
	o := policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{{
		FieldPath: "/data/config.yaml",
		YAML: []policyv1alpha1.YAMLPatchOperation{
			{SubPath: "/server/port", Operator: policyv1alpha1.OverriderOpReplace, Value: apiextensionsv1.JSON{Raw: []byte(`8080`)}},
			{SubPath: "/server/hosts/-", Operator: policyv1alpha1.OverriderOpAdd, Value: apiextensionsv1.JSON{Raw: []byte(`"b"`)}},
			{SubPath: "/debug", Operator: policyv1alpha1.OverriderOpRemove},
		},
	}}}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	want := "server:\n  hosts:\n  - a\n  - b\n  port: 8080\n"
	if got := nestedString(t, obj, "data", "config.yaml"); got != want {
		t.Errorf("config.yaml =\n%s\nwant\n%s", got, want)
	}
}

func TestFieldOverriderJSON(t *testing.T) {
	obj := object(t, configYAML)
	o := policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{{
		FieldPath: "/data/config.json",
		JSON: []policyv1alpha1.JSONPatchOperation{
			{SubPath: "/a/x", Operator: policyv1alpha1.OverriderOpReplace, Value: apiextensionsv1.JSON{Raw: []byte(`false`)}},
			{SubPath: "/c", Operator: policyv1alpha1.OverriderOpAdd, Value: apiextensionsv1.JSON{Raw: []byte(`"new"`)}},
		},
	}}}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	if got, want := nestedString(t, obj, "data", "config.json"), `{"b":1,"a":{"x":false},"c":"new"}`; got != want {
		t.Errorf("config.json = %s, want %s", got, want)
	}
}

func TestFieldOverriderWithoutOperationsBlanks(t *testing.T) {
	obj := object(t, configYAML)
	o := policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{{FieldPath: "/data/plain"}}}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	if got := nestedString(t, obj, "data", "plain"); got != "" {
		t.Errorf("plain = %q, want it blanked", got)
	}
}

func TestPlaintextOrderAfterOtherOverriders(t *testing.T) {
	obj := object(t, deploymentYAML)
	// Plaintext runs last: it sees the label the labels overrider added.
	o := policyv1alpha1.Overriders{
		Plaintext: []policyv1alpha1.PlaintextOverrider{
			{Path: "/metadata/labels/tier", Operator: policyv1alpha1.OverriderOpReplace, Value: apiextensionsv1.JSON{Raw: []byte(`"backend"`)}},
			{Path: "/spec/replicas", Operator: policyv1alpha1.OverriderOpRemove},
		},
		LabelsOverrider: []policyv1alpha1.LabelAnnotationOverrider{
			{Operator: policyv1alpha1.OverriderOpAdd, Value: map[string]string{"tier": "frontend"}},
		},
	}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	if got := obj.GetLabels()["tier"]; got != "backend" {
		t.Errorf("tier = %q, want backend", got)
	}
	if _, found, _ := unstructuredInt(obj.Object, "spec", "replicas"); found {
		t.Error("spec.replicas not removed")
	}
}

func TestFieldOverriderThroughLists(t *testing.T) {
	obj := object(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  template:
    spec:
      containers:
      - name: app
        image: app
        env:
        - {name: CONFIG, value: '{"level":"info"}'}
`)
	o := policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{{
		FieldPath: "/spec/template/spec/containers/0/env/0/value",
		JSON:      []policyv1alpha1.JSONPatchOperation{{SubPath: "/level", Operator: policyv1alpha1.OverriderOpReplace, Value: apiextensionsv1.JSON{Raw: []byte(`"debug"`)}}},
	}}}
	if err := ApplyOverriders(obj, &o); err != nil {
		t.Fatal(err)
	}
	containers, _, _ := unstructuredSlice(obj.Object, "spec", "template", "spec", "containers")
	env := containers[0].(map[string]interface{})["env"].([]interface{})
	if got := env[0].(map[string]interface{})["value"]; got != `{"level":"debug"}` {
		t.Errorf("env value = %v", got)
	}
	for _, bad := range []string{"/spec/template/spec/containers/1/image", "/spec/template/spec/containers/x", "spec/template", "/spec/template/spec/containers/0/image/deeper"} {
		o.FieldOverrider[0].FieldPath = bad
		if err := ApplyOverriders(obj, &o); err == nil || err.Path != bad {
			t.Errorf("field path %s: error %v", bad, err)
		}
	}
}

func TestUnsupportedOperators(t *testing.T) {
	for name, o := range map[string]policyv1alpha1.Overriders{
		"annotationsOverrider[0]": {AnnotationsOverrider: []policyv1alpha1.LabelAnnotationOverrider{{Operator: "merge", Value: map[string]string{"a/b": "c"}}}},
		"commandOverrider[0]":     {CommandOverrider: []policyv1alpha1.CommandArgsOverrider{{ContainerName: "nginx", Operator: "replace"}}},
	} {
		obj := object(t, deploymentYAML)
		err := ApplyOverriders(obj, &o)
		if err == nil || err.Overrider != name || !errors.Is(err, errUnsupportedOperator) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func TestClusterOverridePolicyWrapper(t *testing.T) {
	cop := &policyv1alpha1.ClusterOverridePolicy{Spec: policyv1alpha1.OverrideSpec{Overriders: setLabel("x", "y")}}
	cop.Name = "global"
	p := FromClusterOverridePolicy(cop)
	if p.String() != "ClusterOverridePolicy global" || p.Key() != "global" {
		t.Errorf("%s / %s", p, p.Key())
	}
	obj := object(t, deploymentYAML)
	res, err := NewSet([]*Policy{p}, nil).Apply(obj, cluster("member1", nil))
	if err != nil || obj.GetLabels()["x"] != "y" || len(res.Policies()) != 1 {
		t.Fatalf("%v %v %+v", err, obj.GetLabels(), res)
	}
}
