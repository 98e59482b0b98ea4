package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/cli/controlplaneclient"
	"github.com/propel-mc/propel/internal/cli/explain"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the golden files of explain's text output")

func controlPlaneClients(t *testing.T) *controlplaneclient.Clients {
	t.Helper()
	cp, err := controlplaneclient.New(env.ControlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// What changes from run to run in explain's text: ages, ids, and the
// configuration objects other tests left (events are dropped from the
// model before rendering: their number and order depend on timing).
var (
	ageRE   = regexp.MustCompile(`\b\d+[smhd] ago\b`)
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	countRE = regexp.MustCompile(`\d+ webhook configurations, \d+ customizations`)
)

// goldenText renders x without its events, with ages and ids normalised.
func goldenText(t *testing.T, x *explain.Explanation) string {
	t.Helper()
	y := *x
	y.Events, y.Clusters = nil, append([]explain.ClusterStage(nil), x.Clusters...)
	for i := range y.Clusters {
		y.Clusters[i].Events = nil
	}
	if y.Policy != nil {
		p := *y.Policy
		p.Events = nil
		y.Policy = &p
	}
	if y.Scheduling != nil {
		s := *y.Scheduling
		s.Events = nil
		y.Scheduling = &s
	}
	var b bytes.Buffer
	if err := explain.Text(&b, &y, explain.TextOptions{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s := ageRE.ReplaceAllString(b.String(), "<age> ago")
	s = uuidRE.ReplaceAllString(s, "<uid>")
	return countRE.ReplaceAllString(s, "<n> webhook configurations, <n> customizations")
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-golden to create it)", err)
	}
	if string(want) != got {
		t.Errorf("explain text differs from %s (run with -update-golden to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestExplainWeightedNginxWithOverrideAndRetain: the nginx sample with 3
// replicas weighted 2:1, an OverridePolicy for member2 and a label a
// member-side actor put on member1's copy. explain shows each stage with
// its values and who gave them.
func TestExplainWeightedNginxWithOverrideAndRetain(t *testing.T) {
	membersReady(t)
	const name = "explained"
	deploy := &appsv1.Deployment{}
	readSample(t, "nginx/deployment.yaml", deploy)
	deploy.Name = name
	deploy.Labels = map[string]string{"app": name}
	deploy.Spec.Selector.MatchLabels = map[string]string{"app": name}
	deploy.Spec.Template.Labels = map[string]string{"app": name}
	deploy.Spec.Replicas = ptr.To[int32](3)
	pol := &policyv1alpha1.PropagationPolicy{}
	readSample(t, "nginx-weighted/propagationpolicy.yaml", pol)
	pol.Name = name + "-propagation"
	pol.Spec.ResourceSelectors[0].Name = name
	pol.Spec.Placement.ReplicaScheduling.WeightPreference.StaticWeightList[0].Weight = 2
	byLabel := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name + "-by-label"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}},
			Placement:         policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member3"}}},
		},
	}
	op := &policyv1alpha1.OverridePolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name + "-override"},
		Spec: policyv1alpha1.OverrideSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}},
			OverrideRules: []policyv1alpha1.RuleWithCluster{{
				TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}},
				Overriders: policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{{
					Component: policyv1alpha1.Tag, Operator: policyv1alpha1.OverriderOpReplace, Value: "1.25",
				}}},
			}},
		},
	}
	createAll(t, pol, byLabel, op, deploy)
	t.Cleanup(func() {
		for _, o := range []client.Object{deploy, op, byLabel, pol} {
			_ = env.Client.Delete(context.Background(), o)
		}
	})
	expectRunning(t, "default", name, name, map[string]int{"member1": 2, "member2": 1})

	// A member-side actor labels member1's copy; Retain keeps the label.
	const teamLabel = "owner.example.com/team"
	harness.Eventually(t, "label member1's Deployment", func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		if err := memberGet(ctx, "member1", d); err != nil {
			return false, err
		}
		d.Labels[teamLabel] = "member1-ops"
		c, err := env.MemberClient("member1")
		if err != nil {
			return false, err
		}
		return c.Update(ctx, d) == nil, nil
	}, harness.LogsIn(env.LogDir))

	cp := controlPlaneClients(t)
	var x *explain.Explanation
	harness.Eventually(t, "explain shows every stage", func(ctx context.Context) (bool, error) {
		var err error
		if x, err = explain.Live(ctx, cp, "deploy", name, "default", explain.LiveOptions{}); err != nil {
			return false, err
		}
		return explainedNginxProblems(x, teamLabel) == nil, explainedNginxProblems(x, teamLabel)
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))

	// The JSON form carries the same facts.
	data, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schemaVersion":"propel.explain/v1"`, `"policy":{"kind":"PropagationPolicy","namespace":"default","name":"explained-propagation"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s:\n%s", want, data)
		}
	}
	var text bytes.Buffer
	if err := explain.Text(&text, x, explain.TextOptions{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	t.Logf("explain deploy/%s:\n%s", name, text.String())
	checkGolden(t, "explain-nginx.golden", goldenText(t, x))
}

// explainedNginxProblems lists what the explanation of the 2:1 nginx
// Deployment gets wrong, nil when it is right.
func explainedNginxProblems(x *explain.Explanation, teamLabel string) error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if p := x.Policy; p == nil || p.Kind != "PropagationPolicy" || p.Name != "explained-propagation" || p.PermanentID == "" || p.ImplicitPriority != 3 {
		bad("policy %+v", p)
	} else if len(p.Others) != 1 || p.Others[0].Name != "explained-by-label" || !strings.Contains(p.Others[0].Reason, "less specific selector (label selector < name)") {
		bad("other policies %+v", p.Others)
	}
	ops := map[string]explain.OperationAnswer{}
	for _, op := range x.Interpreter.Operations {
		ops[op.Operation] = op
	}
	if r := ops["InterpretReplica"]; r.Layer != "native" || !strings.Contains(string(r.Result), `"replicas":3`) {
		bad("InterpretReplica %+v (%s)", r, r.Result)
	}
	if h := ops["InterpretHealth"]; h.Layer != "native" {
		bad("InterpretHealth answered by %q", h.Layer)
	}
	if s := x.Scheduling; s == nil || len(s.Clusters) != 2 || s.Clusters[0] != (explain.TargetCluster{Name: "member1", Replicas: 2}) || s.Clusters[1] != (explain.TargetCluster{Name: "member2", Replicas: 1}) {
		bad("scheduling %+v", s)
	} else if len(s.Conditions) != 1 || s.Conditions[0].Status != "True" {
		bad("Scheduled condition %+v", s.Conditions)
	}
	if len(x.Clusters) != 2 {
		bad("%d clusters", len(x.Clusters))
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	for i, want := range []int64{2, 1} {
		c := x.Clusters[i]
		if c.ManifestReplicas == nil || *c.ManifestReplicas != want || c.MemberReplicas == nil || *c.MemberReplicas != want {
			bad("%s replicas: Work %v, member %v, want %d", c.Name, c.ManifestReplicas, c.MemberReplicas, want)
		}
		if c.Applied == nil || c.Applied.Status != "True" || c.Health != "Healthy" || c.Member.Healthy == nil || !*c.Member.Healthy {
			bad("%s applied %+v health %q member %+v", c.Name, c.Applied, c.Health, c.Member)
		}
	}
	if o := x.Clusters[1].Overrides; len(o) != 1 || o[0].Kind != "OverridePolicy" || o[0].Policy != "explained-override" || !strings.Contains(string(o[0].Overriders), "1.25") {
		bad("member2 overrides %+v", o)
	}
	if len(x.Clusters[0].Overrides) != 0 {
		bad("member1 overrides %+v", x.Clusters[0].Overrides)
	}
	retained := false
	for _, r := range x.Clusters[0].Retained {
		retained = retained || (r.Path == `metadata.labels."`+teamLabel+`"` && r.New == "member1-ops")
	}
	if !retained {
		bad("member1 retained %+v lacks %s", x.Clusters[0].Retained, teamLabel)
	}
	if len(x.Status.Aggregated) != 2 {
		bad("aggregated status %+v", x.Status.Aggregated)
	}
	for _, a := range x.Status.Aggregated {
		if !a.Applied || a.Health != "Healthy" {
			bad("aggregated %+v", a)
		}
	}
	if !strings.Contains(string(x.Status.Template), `"readyReplicas":3`) {
		bad("template status %s", x.Status.Template)
	}
	if len(x.Problems) > 0 {
		bad("problems %v", x.Problems)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// TestExplainNamesWebhook: for the Workload kind answered by
// cmd/interpreter-webhook-example, explain names the webhook
// ("<configuration>/<webhook>") for every operation it registers and shows
// the replicas it answered.
func TestExplainNamesWebhook(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	installWorkloadCRD(t)
	addr := startExampleWebhook(t)
	raw := strings.NewReplacer(
		"{{karmada-interpreter-webhook-example-svc-address}}:443", addr,
		"{{caBundle}}", base64.StdEncoding.EncodeToString(env.PKI.CAPEM),
	).Replace(string(karmadaSample(t, "workload/webhook-configuration.yaml")))
	riwc := &configv1alpha1.ResourceInterpreterWebhookConfiguration{}
	if err := yaml.UnmarshalStrict([]byte(raw), riwc); err != nil {
		t.Fatal(err)
	}
	riwc.Name = "explain-examples"
	if err := env.Client.Create(ctx, riwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), riwc) })

	const wlName = "explained-wl"
	pol := &policyv1alpha1.PropagationPolicy{}
	if err := yaml.UnmarshalStrict(karmadaSample(t, "workload/workload-propagationpolicy.yaml"), pol); err != nil {
		t.Fatal(err)
	}
	pol.Namespace, pol.Name = "default", wlName+"-propagation"
	pol.Spec.ResourceSelectors[0].Name = wlName
	pol.Spec.Placement.ClusterAffinity.ClusterNames = []string{"member1", "member2"}
	weights := pol.Spec.Placement.ReplicaScheduling.WeightPreference
	weights.StaticWeightList = weights.StaticWeightList[:2]
	weights.StaticWeightList[0].Weight = 2
	workload := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(karmadaSample(t, "workload/workload-sample.yaml"), &workload.Object); err != nil {
		t.Fatal(err)
	}
	workload.SetNamespace("default")
	workload.SetName(wlName)
	if err := env.Client.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), workload)
		_ = env.Client.Delete(context.Background(), pol)
	})
	harness.Eventually(t, "create the Workload template", func(ctx context.Context) (bool, error) {
		return env.Client.Create(ctx, workload.DeepCopy()) == nil, nil
	}, harness.LogsIn(env.LogDir))

	cp := controlPlaneClients(t)
	const hook = "explain-examples/workloads.example.com"
	harness.Eventually(t, "explain names the webhook", func(ctx context.Context) (bool, error) {
		x, err := explain.Live(ctx, cp, "workloads.workload.example.io", wlName, "default", explain.LiveOptions{})
		if err != nil {
			return false, err
		}
		for _, op := range x.Interpreter.Operations {
			switch op.Operation {
			case "InterpretComponent":
				continue // not registered by the sample: no layer answers it
			}
			if op.Layer != "webhook" || op.Hook != hook {
				return false, fmt.Errorf("%s answered by %q %q, want webhook %s", op.Operation, op.Layer, op.Hook, hook)
			}
			if op.Operation == "InterpretReplica" && !strings.Contains(string(op.Result), `"replicas":3`) {
				return false, fmt.Errorf("InterpretReplica result %s", op.Result)
			}
		}
		if x.Scheduling == nil || len(x.Scheduling.Clusters) != 2 || len(x.Clusters) != 2 || x.Clusters[0].ManifestReplicas == nil || *x.Clusters[0].ManifestReplicas != 2 {
			return false, fmt.Errorf("scheduling %+v clusters %+v", x.Scheduling, x.Clusters)
		}
		var text bytes.Buffer
		_ = explain.Text(&text, x, explain.TextOptions{Now: time.Now()})
		if !strings.Contains(text.String(), "InterpretReplica     webhook "+hook+`: {"replicas":3`) {
			return false, fmt.Errorf("text does not name the webhook:\n%s", text.String())
		}
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))

	// A Lua customization for the kind, then the webhook removed: the
	// customization answers now; the controller records the change once
	// on the template, and explain names the customization.
	ric := &configv1alpha1.ResourceInterpreterCustomization{}
	readSample(t, "workload/customization.yaml", ric)
	if err := env.Client.Create(ctx, ric); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ric) })
	if err := env.Client.Delete(ctx, riwc); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the controller records the layer change and explain names the customization", func(ctx context.Context) (bool, error) {
		x, err := explain.Live(ctx, cp, "workloads.workload.example.io", wlName, "default", explain.LiveOptions{})
		if err != nil {
			return false, err
		}
		for _, op := range x.Interpreter.Operations {
			if op.Operation == "InterpretReplica" && (op.Layer != "customization" || op.Hook != ric.Name) {
				return false, fmt.Errorf("InterpretReplica answered by %q %q", op.Layer, op.Hook)
			}
		}
		var evs corev1.EventList
		if err := env.Client.List(ctx, &evs, client.InNamespace("default")); err != nil {
			return false, err
		}
		n := 0
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == wlName && e.Reason == resourceinterpreter.ReasonInterpreterLayerChanged &&
				strings.Contains(e.Message, "InterpretReplica of workload.example.io/v1alpha1/Workload is now answered by customization "+ric.Name+" (was webhook "+hook+")") {
				n++
			}
		}
		if n != 1 {
			return false, fmt.Errorf("%d InterpreterLayerChanged events for InterpretReplica, want 1", n)
		}
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	// The customization's replica script starts failing: one
	// CustomizationFailing Event on the customization, however often the
	// template is retried.
	harness.Eventually(t, "break the replica script", func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ric), ric); err != nil {
			return false, err
		}
		ric.Spec.Customizations.ReplicaResource.LuaScript = "function GetReplicas(desired)\n  return desired.spec.nothing.here, nil\nend"
		return env.Client.Update(ctx, ric) == nil, nil
	}, harness.LogsIn(env.LogDir))
	failing := func(ctx context.Context) (*corev1.Event, error) {
		var evs corev1.EventList
		if err := env.Client.List(ctx, &evs, client.InNamespace("default")); err != nil {
			return nil, err
		}
		var found *corev1.Event
		for i, e := range evs.Items {
			if e.InvolvedObject.Kind == "ResourceInterpreterCustomization" && e.InvolvedObject.Name == ric.Name && e.Reason == resourceinterpreter.ReasonCustomizationFailing {
				if found != nil {
					return nil, fmt.Errorf("two %s events: %q and %q", e.Reason, found.Message, e.Message)
				}
				found = &evs.Items[i]
			}
		}
		return found, nil
	}
	harness.Eventually(t, "one CustomizationFailing event", func(ctx context.Context) (bool, error) {
		e, err := failing(ctx)
		if err != nil || e == nil {
			return false, err
		}
		if !strings.Contains(e.Message, "InterpretReplica fails for 1 objects: ") || !strings.Contains(e.Message, ":2:") {
			return false, fmt.Errorf("message %q", e.Message)
		}
		return true, nil
	}, harness.Timeout(time.Minute), harness.LogsIn(env.LogDir))
	// Retries go on (backoff capped at 5 s) and record nothing more.
	harness.Consistently(t, "still one CustomizationFailing event, count 1", 12*time.Second, func(ctx context.Context) error {
		e, err := failing(ctx)
		if err == nil && (e == nil || e.Count != 1) {
			err = fmt.Errorf("event %+v, want the one event with count 1", e)
		}
		return err
	}, harness.LogsIn(env.LogDir))
}
