package overrides

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func setLabel(key, value string) policyv1alpha1.Overriders {
	return policyv1alpha1.Overriders{LabelsOverrider: []policyv1alpha1.LabelAnnotationOverrider{
		{Operator: policyv1alpha1.OverriderOpAdd, Value: map[string]string{key: value}},
	}}
}

func rule(target *policyv1alpha1.ClusterAffinity, o policyv1alpha1.Overriders) policyv1alpha1.RuleWithCluster {
	return policyv1alpha1.RuleWithCluster{TargetCluster: target, Overriders: o}
}

func pol(cluster bool, name string, selectors []policyv1alpha1.ResourceSelector, rules ...policyv1alpha1.RuleWithCluster) *Policy {
	p := &Policy{Cluster: cluster, Name: name, Spec: &policyv1alpha1.OverrideSpec{ResourceSelectors: selectors, OverrideRules: rules}}
	if !cluster {
		p.Namespace = "default"
	}
	return p
}

var (
	byName   = []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"}}
	byKind   = []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}}
	byLabel  = []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}}}
	otherKnd = []policyv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "Service"}}
)

// TestOrder checks Karmada's order: cluster policies before namespaced
// ones; within each, implicit priority ascending then name; rules in
// order; non-matching policies and rules skipped.
func TestOrder(t *testing.T) {
	member1 := cluster("member1", map[string]string{"env": "prod"})
	set := NewSet(
		[]*Policy{
			pol(true, "cop-name", byName, rule(nil, setLabel("winner", "cop-name"))),
			pol(true, "cop-all", nil, rule(nil, setLabel("winner", "cop-all")), rule(nil, setLabel("cop-all-rule2", "yes"))),
			pol(true, "cop-all2", byKind, rule(&policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}, setLabel("skipped", "yes")),
				rule(&policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}, setLabel("winner", "cop-all2"))),
			pol(true, "cop-service", otherKnd, rule(nil, setLabel("skipped", "yes"))),
		},
		[]*Policy{
			pol(false, "op-label", byLabel, rule(nil, setLabel("winner", "op-label"))),
			pol(false, "op-b", nil, rule(nil, setLabel("winner", "op-b"))),
			pol(false, "op-a", byKind, rule(nil, setLabel("winner", "op-a"))),
		},
	)
	var order []string
	obj := object(t, deploymentYAML)
	res, err := set.Apply(obj, member1)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range append(res.ClusterOverrides, res.Overrides...) {
		order = append(order, a.PolicyName)
	}
	want := "cop-all,cop-all,cop-all2,cop-name,op-a,op-b,op-label"
	if got := strings.Join(order, ","); got != want {
		t.Errorf("applied order = %s, want %s", got, want)
	}
	if l := obj.GetLabels(); l["winner"] != "op-label" || l["cop-all-rule2"] != "yes" || l["skipped"] != "" {
		t.Errorf("labels = %v", l)
	}
	cops, _, _ := res.Annotations()
	if !strings.HasPrefix(cops, `[{"policyName":"cop-all","overriders":{"labelsOverrider":[{"operator":"add","value":{"winner":"cop-all"}}]}},{"policyName":"cop-all","overriders":{"labelsOverrider":[{"operator":"add","value":{"cop-all-rule2":"yes"}}]}},{"policyName":"cop-all2"`) {
		t.Errorf("applied-cluster-overrides = %s", cops)
	}

	// Cluster-scoped objects get cluster policies only.
	ns := object(t, `{apiVersion: v1, kind: Namespace, metadata: {name: demo}}`)
	res, err = set.Apply(ns, member1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Overrides) != 0 || len(res.ClusterOverrides) != 2 {
		t.Errorf("namespace got %d cluster and %d namespaced rules", len(res.ClusterOverrides), len(res.Overrides))
	}
}

// TestNamespacedPoliciesSeeClusterOverrides: OverridePolicies are matched
// against the object as the ClusterOverridePolicies left it.
func TestNamespacedPoliciesSeeClusterOverrides(t *testing.T) {
	team := []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment",
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "x"}}}}
	set := NewSet(
		[]*Policy{pol(true, "add-team", nil, rule(nil, setLabel("team", "x")))},
		[]*Policy{pol(false, "for-team", team, rule(nil, setLabel("seen", "yes")))},
	)
	obj := object(t, deploymentYAML)
	if _, err := set.Apply(obj, cluster("member1", nil)); err != nil {
		t.Fatal(err)
	}
	if obj.GetLabels()["seen"] != "yes" {
		t.Errorf("labels = %v", obj.GetLabels())
	}
}

func TestDeprecatedTopLevelOverriders(t *testing.T) {
	p := &Policy{Name: "old", Namespace: "default", Spec: &policyv1alpha1.OverrideSpec{
		TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}},
		Overriders:    setLabel("old", "yes"),
	}}
	set := NewSet(nil, []*Policy{p})
	obj := object(t, deploymentYAML)
	if _, err := set.Apply(obj, cluster("member2", nil)); err != nil || obj.GetLabels()["old"] != "" {
		t.Fatalf("member2: %v %v", err, obj.GetLabels())
	}
	if _, err := set.Apply(obj, cluster("member1", nil)); err != nil || obj.GetLabels()["old"] != "yes" {
		t.Fatalf("member1: %v %v", err, obj.GetLabels())
	}
}

// TestErrorsNamePolicyRulePath: every bad override fails with an *Error
// naming the policy, the rule, the overrider and the path.
func TestErrorsNamePolicyRulePath(t *testing.T) {
	cases := []struct {
		name      string
		obj       string
		overrider policyv1alpha1.Overriders
		want      []string
	}{
		{"replace of a missing path", deploymentYAML, policyv1alpha1.Overriders{Plaintext: []policyv1alpha1.PlaintextOverrider{
			{Path: "/spec/replicas", Operator: policyv1alpha1.OverriderOpReplace, Value: apiextensionsv1.JSON{Raw: []byte("3")}},
			{Path: "/spec/paused/x", Operator: policyv1alpha1.OverriderOpReplace, Value: apiextensionsv1.JSON{Raw: []byte("true")}},
		}}, []string{"plaintext[1]", `path "/spec/paused/x"`}},
		{"remove of a missing path", deploymentYAML, policyv1alpha1.Overriders{Plaintext: []policyv1alpha1.PlaintextOverrider{
			{Path: "/metadata/annotations/nope", Operator: policyv1alpha1.OverriderOpRemove},
		}}, []string{"plaintext[0]", `path "/metadata/annotations/nope"`}},
		{"unparsable image", strings.Replace(deploymentYAML, "nginx:1.25", "Nginx:1.25", 1), policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{
			{Component: policyv1alpha1.Tag, Operator: policyv1alpha1.OverriderOpReplace, Value: "v2"},
		}}, []string{"imageOverrider[0]", `path "/spec/template/spec/containers/0/image"`, "must be lowercase"}},
		{"missing predicate path", deploymentYAML, policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{
			{Predicate: &policyv1alpha1.ImagePredicate{Path: "/spec/template/spec/containers/5/image"}, Component: policyv1alpha1.Tag, Operator: policyv1alpha1.OverriderOpRemove},
		}}, []string{"imageOverrider[0]", `path "/spec/template/spec/containers/5/image"`, "out of range"}},
		{"missing YAML sub-path", configYAML, policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{
			{FieldPath: "/data/plain"},
			{FieldPath: "/data/config.json", YAML: []policyv1alpha1.YAMLPatchOperation{{SubPath: "/b", Operator: policyv1alpha1.OverriderOpRemove}}},
			{FieldPath: "/data/config.yaml", YAML: []policyv1alpha1.YAMLPatchOperation{{SubPath: "/server/nope", Operator: policyv1alpha1.OverriderOpReplace, Value: apiextensionsv1.JSON{Raw: []byte("1")}}}},
		}}, []string{"fieldOverrider[2]", `path "/data/config.yaml"`, `subPath "/server/nope"`}},
		{"YAML sub-document that is not YAML", configYAML, policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{
			{FieldPath: "/data/broken", YAML: []policyv1alpha1.YAMLPatchOperation{{SubPath: "/a", Operator: policyv1alpha1.OverriderOpRemove}}},
		}}, []string{"fieldOverrider[0]", `path "/data/broken"`, "parse YAML document"}},
		{"JSON sub-document that is not JSON", strings.Replace(configYAML, `'{"b":1,"a":{"x":true}}'`, "'not json'", 1), policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{
			{FieldPath: "/data/config.json", JSON: []policyv1alpha1.JSONPatchOperation{{SubPath: "/b", Operator: policyv1alpha1.OverriderOpRemove}}},
		}}, []string{"fieldOverrider[0]", `path "/data/config.json"`}},
		{"field that is not a string", configYAML, policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{
			{FieldPath: "/metadata", JSON: []policyv1alpha1.JSONPatchOperation{{SubPath: "/b", Operator: policyv1alpha1.OverriderOpRemove}}},
		}}, []string{"fieldOverrider[0]", `path "/metadata"`, "not a string"}},
		{"missing field", configYAML, policyv1alpha1.Overriders{FieldOverrider: []policyv1alpha1.FieldOverrider{
			{FieldPath: "/data/absent"},
		}}, []string{"fieldOverrider[0]", `path "/data/absent"`, `no key "absent"`}},
		{"command on a non-list", strings.Replace(deploymentYAML, `args: ["--a", "--b"]`, "args: notalist", 1), policyv1alpha1.Overriders{ArgsOverrider: []policyv1alpha1.CommandArgsOverrider{
			{ContainerName: "nginx", Operator: policyv1alpha1.OverriderOpAdd, Value: []string{"x"}},
		}}, []string{"argsOverrider[0]", `path "/spec/template/spec/containers/0/args"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := pol(false, "bad", nil, rule(nil, setLabel("first", "ok")), rule(nil, c.overrider))
			obj := object(t, c.obj)
			obj.SetNamespace("default")
			res, err := NewSet(nil, []*Policy{p}).Apply(obj, cluster("member1", nil))
			var oerr *Error
			if !errors.As(err, &oerr) {
				t.Fatalf("error = %v (%T), want *Error", err, err)
			}
			t.Log(err)
			for _, want := range append([]string{"OverridePolicy default/bad overrideRules[1]"}, c.want...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if len(res.Overrides) != 1 || res.Overrides[0].PolicyName != "bad" {
				t.Errorf("applied before the failure: %+v", res.Overrides)
			}
		})
	}
}
