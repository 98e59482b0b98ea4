package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/objectdiff"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/templatebinding"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Interpreter is what Gather asks of the resource interpreter (the
// facade of internal/interpreter/resourceinterpreter satisfies it).
type Interpreter interface {
	Answerer(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (resourceinterpreter.Answer, error)
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error)
	GetComponents(ctx context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error)
	GetDependencies(ctx context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error)
	Retain(ctx context.Context, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error)
	InterpretHealth(ctx context.Context, obj *unstructured.Unstructured) (bool, error)
}

// Sources are where Gather reads from.
type Sources struct {
	// Client reads the control plane (Propel's scheme, not cached: field
	// selectors are used for Events).
	Client client.Client
	// Mapper maps the template's kind to its resource in the members.
	Mapper meta.RESTMapper
	// Interpreter is re-run on the template and member objects.
	Interpreter Interpreter
	// InterpreterSource describes Interpreter for the output.
	InterpreterSource string
	// Member returns a client of a member cluster (nil: members are not
	// read).
	Member func(ctx context.Context, cluster string) (dynamic.Interface, error)
	// EventsPerStage bounds the events kept per stage (default 3).
	EventsPerStage int
}

// Gather explains the template of kind gvk named namespace/name.
func Gather(ctx context.Context, src Sources, gvk schema.GroupVersionKind, namespace, name string) (*Explanation, error) {
	if src.EventsPerStage <= 0 {
		src.EventsPerStage = 3
	}
	tmpl := &unstructured.Unstructured{}
	tmpl.SetGroupVersionKind(gvk)
	if err := src.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, tmpl); err != nil {
		return nil, fmt.Errorf("get %s %s: %w", gvk.Kind, key(namespace, name), err)
	}
	g := &gatherer{src: src, tmpl: tmpl, gvk: gvk, x: &Explanation{SchemaVersion: SchemaVersion, Template: refOf(tmpl)}}
	g.policy(ctx)
	g.interpreter(ctx)
	b := g.binding(ctx)
	g.clusters(ctx, b)
	g.status(b)
	g.events(ctx, b)
	return g.x, nil
}

type gatherer struct {
	src  Sources
	tmpl *unstructured.Unstructured
	gvk  schema.GroupVersionKind
	x    *Explanation
}

func (g *gatherer) problem(format string, args ...any) {
	g.x.Problems = append(g.x.Problems, fmt.Sprintf(format, args...))
}

func key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func refOf(obj client.Object) ObjectRef {
	gvk := obj.GetObjectKind().GroupVersionKind()
	return ObjectRef{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: string(obj.GetUID()), Generation: obj.GetGeneration()}
}

// policy fills the claiming policy and the other candidates.
func (g *gatherer) policy(ctx context.Context) {
	ps := &PolicyStage{ClaimLabels: map[string]string{}, ClaimAnnotations: map[string]string{}}
	for _, k := range policyindex.ClaimLabelKeys() {
		if v, ok := g.tmpl.GetLabels()[k]; ok {
			ps.ClaimLabels[k] = v
		}
	}
	for _, k := range policyindex.ClaimAnnotationKeys() {
		if v, ok := g.tmpl.GetAnnotations()[k]; ok {
			ps.ClaimAnnotations[k] = v
		}
	}
	g.x.Policy = ps
	var winner *policyindex.Policy
	if ref, ok := policyindex.ClaimRefOf(g.tmpl); ok {
		p, err := policyindex.Get(ctx, g.src.Client, ref)
		if err != nil {
			g.problem("claimed by %s, which cannot be read: %v", describeRef(ref), err)
		} else {
			winner = p
			ps.Kind, ps.Namespace, ps.Name = kindOf(p), p.Namespace, p.Name
			ps.PermanentID = policyindex.ClaimOf(g.tmpl).ID
			ps.Priority, ps.ImplicitPriority = p.Priority(), p.ImplicitPriority(g.tmpl)
		}
	}
	var candidates []*policyindex.Policy
	if g.tmpl.GetNamespace() != "" {
		var pps policyv1alpha1.PropagationPolicyList
		if err := g.src.Client.List(ctx, &pps, client.InNamespace(g.tmpl.GetNamespace())); err != nil {
			g.problem("list PropagationPolicies: %v", err)
		}
		for i := range pps.Items {
			candidates = append(candidates, policyindex.FromPP(&pps.Items[i]))
		}
	}
	var cpps policyv1alpha1.ClusterPropagationPolicyList
	if err := g.src.Client.List(ctx, &cpps); err != nil {
		g.problem("list ClusterPropagationPolicies: %v", err)
	}
	for i := range cpps.Items {
		candidates = append(candidates, policyindex.FromCPP(&cpps.Items[i]))
	}
	if winner == nil {
		namespaced, cluster := split(candidates)
		if best := policyindex.Best(namespaced, g.tmpl); best != nil {
			g.problem("not claimed yet; %s selects it", best.Describe())
		} else if best := policyindex.Best(cluster, g.tmpl); best != nil {
			g.problem("not claimed yet; %s selects it", best.Describe())
		} else {
			g.problem("no PropagationPolicy or ClusterPropagationPolicy selects the template")
		}
	}
	for _, p := range candidates {
		if !p.Selects(g.tmpl) || (winner != nil && p.Cluster == winner.Cluster && p.Key() == winner.Key()) {
			continue
		}
		ps.Others = append(ps.Others, PolicyCandidate{Kind: kindOf(p), Namespace: p.Namespace, Name: p.Name, Priority: p.Priority(), Reason: lostReason(p, winner, g.tmpl)})
	}
}

func split(ps []*policyindex.Policy) (namespaced, cluster []*policyindex.Policy) {
	for _, p := range ps {
		if p.Cluster {
			cluster = append(cluster, p)
		} else {
			namespaced = append(namespaced, p)
		}
	}
	return namespaced, cluster
}

func kindOf(p *policyindex.Policy) string {
	if p.Cluster {
		return "ClusterPropagationPolicy"
	}
	return "PropagationPolicy"
}

func describeRef(r policyindex.ClaimRef) string {
	if r.Cluster {
		return "ClusterPropagationPolicy(" + r.Name + ")"
	}
	return "PropagationPolicy(" + r.Namespace + "/" + r.Name + ")"
}

var implicitNames = map[int]string{
	policyindex.PriorityMatchAll:           "all of the kind",
	policyindex.PriorityMatchLabelSelector: "label selector",
	policyindex.PriorityMatchName:          "name",
}

// lostReason says why p does not claim obj while w does, by Karmada's
// matching rules: a PropagationPolicy before any ClusterPropagationPolicy,
// then explicit priority, implicit priority (name > label selector > all)
// and name; a claim is kept unless preemption takes it.
func lostReason(p, w *policyindex.Policy, obj policyindex.Selectable) string {
	switch {
	case p.Deleting:
		return "being deleted"
	case w == nil:
		return "the template is not claimed"
	case p.Cluster && !w.Cluster:
		return "a PropagationPolicy claims the template; namespaced policies win over cluster ones"
	case !p.Cluster && w.Cluster:
		return "matches, but the template was claimed by the ClusterPropagationPolicy first (preemption off or pending)"
	case p.Priority() < w.Priority():
		return fmt.Sprintf("lower priority (%d < %d)", p.Priority(), w.Priority())
	case p.Priority() > w.Priority():
		return fmt.Sprintf("higher priority (%d > %d), but the template was claimed first (preemption off or pending)", p.Priority(), w.Priority())
	}
	pi, wi := p.ImplicitPriority(obj), w.ImplicitPriority(obj)
	switch {
	case pi < wi:
		return fmt.Sprintf("same priority, less specific selector (%s < %s)", implicitNames[pi], implicitNames[wi])
	case pi > wi:
		return fmt.Sprintf("more specific selector (%s), but the template was claimed first", implicitNames[pi])
	case p.Name > w.Name:
		return fmt.Sprintf("same priority and selector; %q sorts before %q", w.Name, p.Name)
	}
	return "same priority and selector; the template was claimed first"
}

// interpreter asks who answers each operation and runs the template-side
// ones.
func (g *gatherer) interpreter(ctx context.Context) {
	st := &g.x.Interpreter
	st.Source = g.src.InterpreterSource
	for _, op := range customization.Operations() {
		oa := OperationAnswer{Operation: string(op)}
		a, err := g.src.Interpreter.Answerer(g.gvk, op)
		if errors.Is(err, resourceinterpreter.ErrNoHook) {
			oa.Layer = NoLayer
			st.Operations = append(st.Operations, oa)
			continue
		}
		if err != nil {
			oa.Error = err.Error()
			st.Operations = append(st.Operations, oa)
			continue
		}
		oa.Layer, oa.Hook = a.Layer, a.Hook
		var result any
		switch op {
		case configv1alpha1.InterpreterOperationInterpretReplica:
			n, reqs, e := g.src.Interpreter.GetReplicas(ctx, g.tmpl)
			result, err = map[string]any{"replicas": n, "requirements": reqs}, e
		case configv1alpha1.InterpreterOperationInterpretComponent:
			result, err = g.src.Interpreter.GetComponents(ctx, g.tmpl)
		case configv1alpha1.InterpreterOperationInterpretDependency:
			result, err = g.src.Interpreter.GetDependencies(ctx, g.tmpl)
		}
		if err != nil {
			oa.Error = err.Error()
		} else if result != nil {
			oa.Result, _ = json.Marshal(result)
		}
		st.Operations = append(st.Operations, oa)
	}
}

// binding reads the template's ResourceBinding (ClusterResourceBinding
// for a cluster-scoped template) and fills the scheduling stage.
func (g *gatherer) binding(ctx context.Context) workv1alpha2.Binding {
	b, err := templatebinding.Get(ctx, g.src.Client, g.tmpl.GetNamespace(), g.gvk.Kind, g.tmpl.GetName())
	bname := b.GetName()
	if err != nil {
		if apierrors.IsNotFound(err) {
			g.problem("no %s %s", b.BindingKind(), key(g.tmpl.GetNamespace(), bname))
		} else {
			g.problem("get %s %s: %v", b.BindingKind(), key(g.tmpl.GetNamespace(), bname), err)
		}
		return nil
	}
	b.GetObjectKind().SetGroupVersionKind(workv1alpha2.GroupVersion.WithKind(b.BindingKind()))
	spec, status := b.BindingSpec(), b.BindingStatus()
	s := &SchedulingStage{Binding: refOf(b), Replicas: spec.Replicas, Clusters: []TargetCluster{}}
	if spec.Placement != nil {
		s.Placement, _ = json.Marshal(spec.Placement)
	}
	for _, c := range spec.Clusters {
		s.Clusters = append(s.Clusters, TargetCluster{Name: c.Name, Replicas: c.Replicas})
	}
	for _, c := range status.Conditions {
		if c.Type == "Scheduled" {
			s.Conditions = append(s.Conditions, conditionOf(c))
		}
	}
	g.x.Scheduling = s
	return b
}

func conditionOf(c metav1.Condition) Condition {
	return Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime.Time}
}

// clusters fills one stage per target cluster and per Work of the binding.
func (g *gatherer) clusters(ctx context.Context, b workv1alpha2.Binding) {
	if b == nil {
		return
	}
	var works workv1alpha1.WorkList
	id := workv1alpha2.PermanentID(b)
	if id == "" {
		g.problem("%s has no permanent id; its Works cannot be found", workv1alpha2.BindingName(b))
	} else if err := g.src.Client.List(ctx, &works, client.MatchingLabels{b.PermanentIDLabel(): id}); err != nil {
		g.problem("list Works: %v", err)
	}
	byCluster := map[string]*workv1alpha1.Work{}
	for i := range works.Items {
		w := &works.Items[i]
		if c, err := names.ClusterOfExecutionSpace(w.Namespace); err == nil {
			byCluster[c] = w
		}
	}
	seen := map[string]bool{}
	for _, tc := range b.BindingSpec().Clusters {
		seen[tc.Name] = true
		g.x.Clusters = append(g.x.Clusters, g.cluster(ctx, tc.Name, tc.Replicas, byCluster[tc.Name]))
	}
	var rest []string
	for c := range byCluster {
		if !seen[c] {
			rest = append(rest, c)
		}
	}
	sort.Strings(rest)
	for _, c := range rest {
		cs := g.cluster(ctx, c, 0, byCluster[c])
		g.problem("Work %s/%s is for cluster %s, which the binding no longer targets", byCluster[c].Namespace, byCluster[c].Name, c)
		g.x.Clusters = append(g.x.Clusters, cs)
	}
}

func (g *gatherer) cluster(ctx context.Context, name string, replicas int32, w *workv1alpha1.Work) ClusterStage {
	cs := ClusterStage{Name: name, ScheduledReplicas: replicas}
	if w == nil {
		cs.Work = ObjectRef{Namespace: names.ExecutionSpace(name), Name: names.WorkName(g.gvk.Kind, g.tmpl.GetName(), g.tmpl.GetNamespace())}
		g.problem("cluster %s: no Work yet (expected %s/%s)", name, cs.Work.Namespace, cs.Work.Name)
		return cs
	}
	w.SetGroupVersionKind(workv1alpha1.GroupVersion.WithKind("Work"))
	cs.Work = refOf(w)
	var manifest *unstructured.Unstructured
	if ms := w.Spec.Workload.Manifests; len(ms) > 0 {
		manifest = &unstructured.Unstructured{}
		if err := manifest.UnmarshalJSON(ms[0].Raw); err != nil {
			g.problem("cluster %s: Work manifest: %v", name, err)
			manifest = nil
		} else if n, ok, _ := unstructured.NestedInt64(manifest.Object, "spec", "replicas"); ok {
			cs.ManifestReplicas = &n
		}
	}
	for _, a := range []struct{ annotation, kind string }{
		{names.AppliedOverridesAnnotation, "OverridePolicy"},
		{names.AppliedClusterOverridesAnnotation, "ClusterOverridePolicy"},
	} {
		v := w.Annotations[a.annotation]
		if v == "" {
			continue
		}
		var applied []struct {
			PolicyName string          `json:"policyName"`
			Overriders json.RawMessage `json:"overriders"`
		}
		if err := json.Unmarshal([]byte(v), &applied); err != nil {
			g.problem("cluster %s: annotation %s: %v", name, a.annotation, err)
			continue
		}
		for _, ap := range applied {
			cs.Overrides = append(cs.Overrides, AppliedOverride{Kind: a.kind, Policy: ap.PolicyName, Overriders: ap.Overriders})
		}
	}
	for _, c := range w.Status.Conditions {
		if c.Type == workv1alpha1.WorkApplied {
			cond := conditionOf(c)
			cs.Applied = &cond
		}
	}
	if ms := w.Status.ManifestStatuses; len(ms) > 0 {
		cs.Health = string(ms[0].Health)
		if ms[0].Status != nil {
			cs.Status = ms[0].Status.Raw
		}
	}
	g.member(ctx, &cs, manifest)
	return cs
}

// member reads the member copy: generation, readiness, replicas, retained
// fields and health.
func (g *gatherer) member(ctx context.Context, cs *ClusterStage, manifest *unstructured.Unstructured) {
	if g.src.Member == nil || manifest == nil {
		return
	}
	dyn, err := g.src.Member(ctx, cs.Name)
	if err == nil {
		var mapping *meta.RESTMapping
		if mapping, err = g.src.Mapper.RESTMapping(g.gvk.GroupKind(), g.gvk.Version); err == nil {
			var obj *unstructured.Unstructured
			obj, err = dyn.Resource(mapping.Resource).Namespace(manifest.GetNamespace()).Get(ctx, manifest.GetName(), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				cs.Member.Reachable, err = true, nil
			case err == nil:
				cs.Member.Reachable, cs.Member.Found = true, true
				g.memberObject(ctx, cs, manifest, obj)
			}
		}
	}
	if err != nil {
		cs.Member.Error = err.Error()
		g.problem("cluster %s: member not readable: %v", cs.Name, err)
	}
}

func (g *gatherer) memberObject(ctx context.Context, cs *ClusterStage, manifest, obj *unstructured.Unstructured) {
	cs.Member.Generation = obj.GetGeneration()
	if n, ok, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration"); ok {
		cs.Member.ObservedGeneration = &n
	}
	if n, ok, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas"); ok {
		cs.MemberReplicas = &n
	}
	if healthy, err := g.src.Interpreter.InterpretHealth(ctx, obj); err == nil {
		cs.Member.Healthy = &healthy
	} else {
		g.problem("cluster %s: InterpretHealth: %v", cs.Name, err)
	}
	cs.Retained = memberOwnedMetadata(manifest, obj)
	if g.src.Interpreter.HookEnabled(g.gvk, configv1alpha1.InterpreterOperationRetain) {
		out, err := g.src.Interpreter.Retain(ctx, manifest.DeepCopy(), obj.DeepCopy())
		if err != nil {
			g.problem("cluster %s: Retain: %v", cs.Name, err)
			return
		}
		changes, err := objectdiff.Values(manifest.Object, out.Object)
		if err != nil {
			return
		}
		for _, c := range changes {
			if !strings.HasPrefix(c.Path, "metadata.") {
				cs.Retained = append(cs.Retained, c)
			}
		}
	}
}

// memberOwnedMetadata lists the labels and annotations the member object
// has and the manifest does not set, except those Propel manages (listed
// in the member's managed-labels/-annotations): the execution controller
// keeps them on every update.
func memberOwnedMetadata(manifest, obj *unstructured.Unstructured) []objectdiff.Change {
	var out []objectdiff.Change
	for _, f := range []struct {
		field   string
		have    map[string]string
		want    map[string]string
		managed string
	}{
		{"labels", obj.GetLabels(), manifest.GetLabels(), obj.GetAnnotations()[names.ManagedLabelsAnnotation]},
		{"annotations", obj.GetAnnotations(), manifest.GetAnnotations(), obj.GetAnnotations()[names.ManagedAnnotationsAnnotation]},
	} {
		managed := map[string]bool{}
		for _, k := range strings.Split(f.managed, ",") {
			managed[k] = true
		}
		keys := make([]string, 0, len(f.have))
		for k := range f.have {
			if _, ok := f.want[k]; !ok && !managed[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, objectdiff.Change{Path: "metadata." + f.field + "." + quoteKey(k), New: f.have[k]})
		}
	}
	return out
}

func quoteKey(k string) string {
	if strings.ContainsAny(k, "./[") {
		return fmt.Sprintf("%q", k)
	}
	return k
}

// status fills the aggregated status and the template's .status.
func (g *gatherer) status(b workv1alpha2.Binding) {
	if raw, ok := g.tmpl.Object["status"]; ok {
		g.x.Status.Template, _ = json.Marshal(raw)
	}
	if b == nil {
		return
	}
	st := b.BindingStatus()
	for _, it := range st.AggregatedStatus {
		g.x.Status.Aggregated = append(g.x.Status.Aggregated, AggregatedItem{Cluster: it.ClusterName, Applied: it.Applied, AppliedMessage: it.AppliedMessage, Health: string(it.Health)})
	}
	for _, c := range st.Conditions {
		if c.Type != "Scheduled" {
			g.x.Status.Conditions = append(g.x.Status.Conditions, conditionOf(c))
		}
	}
}

// events lists the Events of the template, the binding and the Works and
// files each under its stage, newest first.
func (g *gatherer) events(ctx context.Context, b workv1alpha2.Binding) {
	var all []corev1.Event
	list := func(namespace, kind, name string) {
		var evs corev1.EventList
		ns := namespace
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
		if err := g.src.Client.List(ctx, &evs, client.InNamespace(ns), client.MatchingFields{"involvedObject.name": name}); err != nil {
			g.problem("list events of %s %s: %v", kind, key(namespace, name), err)
			return
		}
		for _, e := range evs.Items {
			if e.InvolvedObject.Kind == kind {
				all = append(all, e)
			}
		}
	}
	list(g.tmpl.GetNamespace(), g.gvk.Kind, g.tmpl.GetName())
	if b != nil {
		list(b.GetNamespace(), b.BindingKind(), b.GetName())
	}
	for i := range g.x.Clusters {
		if w := g.x.Clusters[i].Work; w.UID != "" {
			list(w.Namespace, "Work", w.Name)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return eventTime(&all[i]).After(eventTime(&all[j])) })
	n := g.src.EventsPerStage
	add := func(to *[]Event, e *corev1.Event) {
		if len(*to) < n {
			*to = append(*to, Event{Type: e.Type, Reason: e.Reason, Message: e.Message, Object: e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, Count: e.Count, LastSeen: eventTime(e)})
		}
	}
	for i := range all {
		e := &all[i]
		switch {
		case e.InvolvedObject.Kind == "Work":
			for j := range g.x.Clusters {
				if g.x.Clusters[j].Work.Name == e.InvolvedObject.Name && g.x.Clusters[j].Work.Namespace == e.InvolvedObject.Namespace {
					add(&g.x.Clusters[j].Events, e)
				}
			}
		case strings.HasPrefix(e.Reason, "ApplyPolicy") || strings.HasPrefix(e.Reason, "Preempt"):
			add(&g.x.Policy.Events, e)
		case strings.HasPrefix(e.Reason, "ScheduleBinding") && g.x.Scheduling != nil:
			add(&g.x.Scheduling.Events, e)
		default:
			add(&g.x.Events, e)
		}
	}
}

func eventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case e.EventTime.Time.IsZero():
		return e.CreationTimestamp.Time
	}
	return e.EventTime.Time
}
