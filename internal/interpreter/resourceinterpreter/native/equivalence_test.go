package native_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The tests below compare the native layer with the typed reference
// (typedref_*_test.go, the previous implementation, which converted
// objects to typed structs) on objects generated from random bytes, in the
// typed conversion's canonical form, as an API server would serve them.
// Whenever the reference answers, the native layer must give the same
// answer; for AggregateStatus, the same status (and the same object for an
// unchanged status).

// gen draws values from fuzz input; past its end every draw is zero.
type gen struct {
	data []byte
	pos  int
}

func (g *gen) byte() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	g.pos++
	return g.data[g.pos-1]
}

func (g *gen) intn(n int) int { return int(g.byte()) % n }
func (g *gen) bool() bool     { return g.byte()&1 == 1 }

func pick[T any](g *gen, options ...T) T { return options[g.intn(len(options))] }

// small is mostly a small count, sometimes 0 or an extreme.
func (g *gen) small() int32 {
	switch g.intn(16) {
	case 0:
		return 0
	case 1:
		return pick(g, int32(-1), int32(1<<31-1), int32(-1<<31))
	}
	return int32(g.intn(6))
}

func (g *gen) optional() *int32 {
	if g.bool() {
		return nil
	}
	return ptr.To(g.small())
}

func (g *gen) quantity() resource.Quantity {
	return resource.MustParse(pick(g, "100m", "1", "2Gi", "0", "1.5", "500Mi", "250m", "3", "1Ki"))
}

func (g *gen) resources() corev1.ResourceList {
	if g.bool() {
		return nil
	}
	list := corev1.ResourceList{}
	for range g.intn(4) {
		name := pick(g, "cpu", "memory", "ephemeral-storage", "pods", "nvidia.com/gpu", "hugepages-2Mi",
			"kubernetes.io/batch", "attachable-volumes-aws", "foo", "example.com/bar")
		list[corev1.ResourceName(name)] = g.quantity()
	}
	return list
}

func (g *gen) name(prefix string) string {
	return pick(g, "", prefix+"-a", prefix+"-b", prefix+"-a", "default")
}

func (g *gen) time() metav1.Time {
	if g.bool() {
		return metav1.Time{}
	}
	return metav1.Unix(int64(1700000000+g.intn(100)), 0)
}

func (g *gen) container(prefix string) corev1.Container {
	c := corev1.Container{Name: pick(g, "a", "b", "c"), Image: "img"}
	c.Resources.Requests, c.Resources.Limits = g.resources(), g.resources()
	for range g.intn(3) {
		var from corev1.EnvFromSource
		if g.bool() {
			from.ConfigMapRef = &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: g.name("cm")}}
		} else {
			from.SecretRef = &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: g.name("secret")}}
		}
		c.EnvFrom = append(c.EnvFrom, from)
	}
	for range g.intn(3) {
		e := corev1.EnvVar{Name: "E", Value: "v"}
		switch g.intn(3) {
		case 0:
			e.ValueFrom = &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: g.name("cm")}, Key: "k"}}
		case 1:
			e.ValueFrom = &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: g.name("secret")}, Key: "k"}}
		}
		c.Env = append(c.Env, e)
	}
	if g.bool() {
		c.VolumeMounts = []corev1.VolumeMount{{Name: "v", MountPath: "/" + prefix}}
	}
	return c
}

func (g *gen) volume() corev1.Volume {
	v := corev1.Volume{Name: "v"}
	s := &v.VolumeSource
	switch g.intn(10) {
	case 0:
		s.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: g.name("cm")}}
	case 1:
		s.Secret = &corev1.SecretVolumeSource{SecretName: g.name("secret")}
	case 2:
		s.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: g.name("claim")}
	case 3:
		s.Projected = &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: g.name("cm")}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: g.name("secret")}}},
		}}
	case 4:
		s.CSI = &corev1.CSIVolumeSource{Driver: "d", NodePublishSecretRef: &corev1.LocalObjectReference{Name: g.name("secret")}}
	case 5:
		s.CephFS = &corev1.CephFSVolumeSource{Monitors: []string{"m"}, SecretRef: &corev1.LocalObjectReference{Name: g.name("secret")}}
	case 6:
		s.AzureFile = &corev1.AzureFileVolumeSource{SecretName: g.name("secret"), ShareName: "s"}
	case 7:
		s.ISCSI = &corev1.ISCSIVolumeSource{TargetPortal: "t", IQN: "i", SecretRef: &corev1.LocalObjectReference{Name: g.name("secret")}}
	case 8:
		s.FlexVolume = &corev1.FlexVolumeSource{Driver: "d", SecretRef: &corev1.LocalObjectReference{Name: g.name("secret")}}
	default:
		s.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	return v
}

func (g *gen) podSpec() corev1.PodSpec {
	var spec corev1.PodSpec
	switch g.intn(3) {
	case 1:
		spec.NodeSelector = map[string]string{}
	case 2:
		spec.NodeSelector = map[string]string{"disk": pick(g, "ssd", "")}
	}
	for range g.intn(3) {
		t := corev1.Toleration{Key: pick(g, "a", ""), Operator: pick(g, corev1.TolerationOpEqual, corev1.TolerationOpExists, ""),
			Value: pick(g, "v", ""), Effect: pick(g, corev1.TaintEffectNoSchedule, "")}
		if g.bool() {
			t.TolerationSeconds = ptr.To(int64(g.small()))
		}
		spec.Tolerations = append(spec.Tolerations, t)
	}
	if g.intn(4) == 0 {
		spec.Tolerations = []corev1.Toleration{}
	}
	if g.bool() {
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}
		if g.bool() {
			spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}},
			}}
		}
	}
	for range g.intn(3) {
		spec.Containers = append(spec.Containers, g.container("c"))
	}
	for range g.intn(2) {
		spec.InitContainers = append(spec.InitContainers, g.container("i"))
	}
	if g.intn(4) == 0 {
		spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(g.container("e"))}}
	}
	spec.Overhead = g.resources()
	spec.PriorityClassName = pick(g, "", "high")
	spec.ServiceAccountName = g.name("sa")
	for range g.intn(2) {
		spec.ImagePullSecrets = append(spec.ImagePullSecrets, corev1.LocalObjectReference{Name: g.name("pull")})
	}
	for range g.intn(4) {
		spec.Volumes = append(spec.Volumes, g.volume())
	}
	spec.NodeName = pick(g, "", "node-1")
	return spec
}

func (g *gen) meta(kind string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: kind + "-x", Namespace: pick(g, "default", "", "prod"), Generation: int64(g.intn(4))}
	switch g.intn(4) {
	case 0:
	case 1:
		m.Annotations = map[string]string{"resourcetemplate.karmada.io/generation": "x"}
	default:
		m.Annotations = map[string]string{"resourcetemplate.karmada.io/generation": strconv.Itoa(g.intn(4))}
	}
	if g.bool() {
		m.Labels = map[string]string{"resourcetemplate.karmada.io/retain-replicas": pick(g, "true", "false")}
	}
	if g.bool() {
		m.CreationTimestamp = g.time()
	}
	return m
}

func (g *gen) conditions(kind string) []map[string]any {
	var out []map[string]any
	for range g.intn(3) {
		c := map[string]any{"type": pick(g, "Available", "Progressing"), "status": pick(g, "True", "False"),
			"lastTransitionTime": g.time(), "reason": pick(g, "", "R"), "message": pick(g, "", "m")}
		if kind == "Deployment" {
			c["lastUpdateTime"] = g.time()
		}
		out = append(out, c)
	}
	return out
}

// object generates a canonical object of kind.
func (g *gen) object(t testing.TB, kind string) *unstructured.Unstructured {
	var typed runtime.Object
	var conditions any
	switch kind {
	case "Deployment":
		d := &appsv1.Deployment{ObjectMeta: g.meta(kind)}
		d.Spec.Replicas, d.Spec.Template.Spec = g.optional(), g.podSpec()
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: int64(g.intn(4)), Replicas: g.small(), UpdatedReplicas: g.small(),
			ReadyReplicas: g.small(), AvailableReplicas: g.small(), UnavailableReplicas: g.small(),
			TerminatingReplicas: g.optional(), CollisionCount: g.optional()}
		typed, conditions = d, g.conditions(kind)
	case "ReplicaSet":
		r := &appsv1.ReplicaSet{ObjectMeta: g.meta(kind)}
		r.Spec.Replicas, r.Spec.Template.Spec = g.optional(), g.podSpec()
		r.Status = appsv1.ReplicaSetStatus{ObservedGeneration: int64(g.intn(4)), Replicas: g.small(), FullyLabeledReplicas: g.small(),
			ReadyReplicas: g.small(), AvailableReplicas: g.small(), TerminatingReplicas: g.optional()}
		typed, conditions = r, g.conditions(kind)
	case "StatefulSet":
		s := &appsv1.StatefulSet{ObjectMeta: g.meta(kind)}
		s.Spec.Replicas, s.Spec.Template.Spec = g.optional(), g.podSpec()
		if g.bool() {
			s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: g.name("claim")}}}
		}
		s.Status = appsv1.StatefulSetStatus{ObservedGeneration: int64(g.intn(4)), Replicas: g.small(), ReadyReplicas: g.small(),
			CurrentReplicas: g.small(), UpdatedReplicas: g.small(), AvailableReplicas: g.small(),
			CurrentRevision: pick(g, "", "r1"), UpdateRevision: pick(g, "", "r2"), CollisionCount: g.optional()}
		typed, conditions = s, g.conditions(kind)
	case "DaemonSet":
		d := &appsv1.DaemonSet{ObjectMeta: g.meta(kind)}
		d.Spec.Template.Spec = g.podSpec()
		d.Status = appsv1.DaemonSetStatus{ObservedGeneration: int64(g.intn(4)), CurrentNumberScheduled: g.small(),
			NumberMisscheduled: g.small(), DesiredNumberScheduled: g.small(), NumberReady: g.small(),
			UpdatedNumberScheduled: g.small(), NumberAvailable: g.small(), NumberUnavailable: g.small(), CollisionCount: g.optional()}
		typed, conditions = d, g.conditions(kind)
	case "Job":
		j := &batchv1.Job{ObjectMeta: g.meta(kind)}
		j.Spec.Parallelism, j.Spec.Completions, j.Spec.Template.Spec = g.optional(), g.optional(), g.podSpec()
		if g.bool() {
			j.Spec.ManualSelector = ptr.To(g.bool())
		}
		if g.bool() {
			// The labels the job controller generates (Prune drops them).
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{
				"app": "x", "controller-uid": "u", batchv1.ControllerUidLabel: "u"}}
			j.Spec.Template.Labels = map[string]string{"app": "x", "controller-uid": "u", "job-name": "j",
				batchv1.ControllerUidLabel: "u", batchv1.JobNameLabel: "j"}
		}
		typed = j
	case "Pod":
		p := &corev1.Pod{ObjectMeta: g.meta(kind), Spec: g.podSpec()}
		p.Status.Phase = pick(g, corev1.PodRunning, corev1.PodPending, corev1.PodSucceeded)
		typed = p
	}
	gvk := map[string]string{"Deployment": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
		"Job": "batch/v1", "Pod": "v1"}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(gvk[kind])
	u.SetKind(kind)
	if list, _ := conditions.([]map[string]any); len(list) > 0 {
		// Conditions go through the typed struct of the kind, as in an
		// object served by an API server.
		raw, _ := json.Marshal(map[string]any{"conditions": list})
		var status map[string]any
		_ = json.Unmarshal(raw, &status)
		var canonical any
		switch kind {
		case "Deployment":
			canonical = &appsv1.DeploymentStatus{}
		case "ReplicaSet":
			canonical = &appsv1.ReplicaSetStatus{}
		case "StatefulSet":
			canonical = &appsv1.StatefulSetStatus{}
		default:
			canonical = &appsv1.DaemonSetStatus{}
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(status, canonical); err != nil {
			t.Fatal(err)
		}
		c, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(canonical)
		_ = unstructured.SetNestedField(u.Object, c["conditions"], "status", "conditions")
	}
	return u
}

// perturbStatus sometimes makes the status non-canonical, as a client
// other than an API server could write it: an unknown key, a float for an
// integer, a condition without its times.
func (g *gen) perturbStatus(u *unstructured.Unstructured) {
	status, _ := u.Object["status"].(map[string]any)
	if status == nil {
		return
	}
	switch g.intn(6) {
	case 0:
		status["unknownField"] = int64(1)
	case 1:
		for k, v := range status {
			if n, ok := v.(int64); ok {
				status[k] = float64(n)
			}
		}
	case 2:
		if list, _ := status["conditions"].([]any); len(list) > 0 {
			delete(list[0].(map[string]any), "lastTransitionTime")
		}
	case 3:
		status["conditions"] = []any{}
	}
}

// memberItems reflects generated member objects with the reference, and
// sometimes adds a status in another shape (extra keys, floats, null,
// unknown case, invalid JSON).
func (g *gen) memberItems(t testing.TB, kind string, ref *Interpreter) []workv1alpha2.AggregatedStatusItem {
	if g.intn(8) == 0 {
		return nil
	}
	var items []workv1alpha2.AggregatedStatusItem
	for i := range g.intn(4) {
		item := workv1alpha2.AggregatedStatusItem{ClusterName: fmt.Sprintf("member%d", i+1), Applied: true}
		switch g.intn(8) {
		case 0: // no status
		case 1:
			item.Status = &runtime.RawExtension{Raw: []byte(pick(g, `{"replicas":2.0}`, `{"Replicas":3,"generation":1}`,
				`null`, `{"replicas":"2"}`, `{"extra":{"a":[1,2]},"replicas":4,"observedGeneration":2}`, `{"replicas":1}x`,
				`{"conditions":[],"replicas":1}`, `{"replicas":1e1}`))}
		default:
			raw, err := ref.ReflectStatus(ctx, g.object(t, kind))
			if err != nil || raw == nil {
				continue
			}
			item.Status = raw
		}
		items = append(items, item)
	}
	return items
}

func asJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return "marshal error: " + err.Error()
	}
	return string(raw)
}

// sameStatus compares the .status of two objects as JSON.
func sameStatus(a, b *unstructured.Unstructured) bool {
	return asJSON(a.Object["status"]) == asJSON(b.Object["status"])
}

var equivalenceKinds = []string{"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "Pod"}

// compareOnInput runs every operation of both implementations on objects
// generated from data and reports differences.
func compareOnInput(t *testing.T, data []byte) {
	g := &gen{data: data}
	kind := pick(g, equivalenceKinds...)
	ref, got := New(WithPriorityClassName()), native.New(native.WithPriorityClassName())
	in := g.object(t, kind)
	g.perturbStatus(in)

	wantN, wantReqs, wantErr := ref.GetReplicas(ctx, in.DeepCopy())
	n, reqs, err := got.GetReplicas(ctx, in)
	if wantErr == nil && (err != nil || n != wantN || asJSON(reqs) != asJSON(wantReqs)) {
		t.Errorf("%s GetReplicas = %d %s %v, reference %d %s", kind, n, asJSON(reqs), err, wantN, asJSON(wantReqs))
	}

	wantRaw, wantErr := ref.ReflectStatus(ctx, in.DeepCopy())
	raw, err := got.ReflectStatus(ctx, in)
	if wantErr == nil && (err != nil || rawString(raw) != rawString(wantRaw)) {
		t.Errorf("%s ReflectStatus = %s %v, reference %s", kind, rawString(raw), err, rawString(wantRaw))
	}
	if (wantErr == nil) != (err == nil) && kind != "Pod" {
		t.Errorf("%s ReflectStatus error %v, reference %v", kind, err, wantErr)
	}

	wantHealthy, wantErr := ref.InterpretHealth(ctx, in.DeepCopy())
	healthy, err := got.InterpretHealth(ctx, in)
	if wantErr == nil && (err != nil || healthy != wantHealthy) {
		t.Errorf("%s InterpretHealth = %v %v, reference %v", kind, healthy, err, wantHealthy)
	}

	wantDeps, wantErr := ref.GetDependencies(ctx, in.DeepCopy())
	deps, err := got.GetDependencies(ctx, in)
	if wantErr == nil && (err != nil || asJSON(deps) != asJSON(wantDeps)) {
		t.Errorf("%s GetDependencies = %s %v, reference %s", kind, asJSON(deps), err, asJSON(wantDeps))
	}

	items := g.memberItems(t, kind, ref)
	before := in.DeepCopy()
	refIn := in.DeepCopy()
	wantOut, wantErr := ref.AggregateStatus(ctx, refIn, items)
	out, err := got.AggregateStatus(ctx, in, items)
	if wantErr == nil {
		switch {
		case err != nil:
			t.Errorf("%s AggregateStatus: %v, reference succeeds", kind, err)
		case (out == in) != (wantOut == refIn):
			t.Errorf("%s AggregateStatus returned its input: %v, reference %v", kind, out == in, wantOut == refIn)
		case !sameStatus(out, wantOut):
			t.Errorf("%s AggregateStatus status\n got %s\nwant %s", kind, asJSON(out.Object["status"]), asJSON(wantOut.Object["status"]))
		case out != in && !reflect.DeepEqual(out.Object, wantOut.Object):
			// Canonical input: the rest of the object is as the
			// reference's normalized object.
			t.Errorf("%s AggregateStatus object\n got %s\nwant %s", kind, asJSON(out.Object), asJSON(wantOut.Object))
		}
	}
	if !reflect.DeepEqual(in.Object, before.Object) {
		t.Errorf("%s AggregateStatus changed its input", kind)
	}

	checkPruneJobSelector(t, in)
}

func rawString(r *runtime.RawExtension) string {
	if r == nil {
		return "<nil>"
	}
	return string(r.Raw)
}

// TestEquivalenceWithTypedReference is the table: 1000 generated inputs.
func TestEquivalenceWithTypedReference(t *testing.T) {
	state := uint64(1)
	for i := range 1000 {
		data := make([]byte, 256)
		for j := range data {
			state = state*6364136223846793005 + 1442695040888963407
			data[j] = byte(state >> 56)
		}
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareOnInput(t, data) })
		if t.Failed() {
			return
		}
	}
}

// FuzzEquivalenceWithTypedReference explores inputs beyond the table:
// go test -run '^$' -fuzz FuzzEquivalenceWithTypedReference -fuzztime=30s
func FuzzEquivalenceWithTypedReference(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 255, 254, 253})
	f.Fuzz(compareOnInput)
}

// checkPruneJobSelector checks Prune's one rule rewritten from typed to
// unstructured access: a Job's generated selector and template labels go
// unless spec.manualSelector, read here through the typed Job, is true.
// Every other label stays.
func checkPruneJobSelector(t *testing.T, in *unstructured.Unstructured) {
	t.Helper()
	if in.GetKind() != "Job" {
		return
	}
	var job batchv1.Job
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(in.Object, &job); err != nil {
		return // not a Job the typed reference reads
	}
	pruned := in.DeepCopy()
	if err := native.Prune(pruned, native.RemoveJobTTLSeconds); err != nil {
		t.Errorf("Prune of a typed Job: %v", err)
		return
	}
	manual := job.Spec.ManualSelector != nil && *job.Spec.ManualSelector
	generated := map[string]bool{batchv1.ControllerUidLabel: true, batchv1.JobNameLabel: true, "controller-uid": true, "job-name": true}
	for path, want := range map[string]map[string]string{
		"spec.selector.matchLabels":     selectorLabels(job.Spec.Selector),
		"spec.template.metadata.labels": job.Spec.Template.Labels,
	} {
		got, _, _ := unstructured.NestedStringMap(pruned.Object, strings.Split(path, ".")...)
		for k, v := range want {
			drop := !manual && generated[k] && (path != "spec.selector.matchLabels" || k == batchv1.ControllerUidLabel || k == "controller-uid")
			if gv, ok := got[k]; ok == drop || (ok && gv != v) {
				t.Errorf("Prune Job (manualSelector %v): %s[%s] = %q present %v, want dropped %v", manual, path, k, gv, ok, drop)
			}
		}
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(pruned.Object, "spec", "ttlSecondsAfterFinished"); found {
		t.Error("Prune Job kept spec.ttlSecondsAfterFinished")
	}
}

func selectorLabels(s *metav1.LabelSelector) map[string]string {
	if s == nil {
		return nil
	}
	return s.MatchLabels
}
