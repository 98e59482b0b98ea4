// Package replay runs interpreter operations on live objects with two
// configurations, the one the control plane runs (active) and a candidate
// (a new customization file or a webhook not yet registered), and reports,
// per object and operation, who answered each, the differences between the
// answers, and errors. It is `propelctl interpret --replay`: a way to see
// what a customization would change before rolling it out, and a CI gate
// (any error of the candidate fails the run).
//
// Template-side operations (InterpretReplica, ReviseReplica,
// InterpretComponent, InterpretDependency, AggregateStatus) run on the
// control plane's templates; member-side ones (Retain, InterpretStatus,
// InterpretHealth) run on the member copies named by the templates' Works
// when Observed is set. Nothing is written anywhere.
package replay

import (
	"context"
	"fmt"
	"sort"

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
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/templatebinding"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Interpreter is a configuration to replay: the facade of
// internal/interpreter/resourceinterpreter satisfies it.
type Interpreter interface {
	layer.Operations
	Answerer(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (resourceinterpreter.Answer, error)
}

// Target is a kind and the operations to replay for it.
type Target struct {
	GVK        schema.GroupVersionKind
	Operations []configv1alpha1.InterpreterOperation
}

// Sources are where Run reads live objects.
type Sources struct {
	Client client.Client
	Mapper meta.RESTMapper
	// Member returns a client of a member cluster; needed with Observed.
	Member func(ctx context.Context, cluster string) (dynamic.Interface, error)
}

// Options choose the objects.
type Options struct {
	// Namespace limits the templates to one namespace; "" is all.
	Namespace string
	// Observed also replays member-side operations on the member copies.
	Observed bool
	// Observer, when set, hears of each template before it is replayed
	// and of each object's report as soon as it is complete, so that a
	// long run shows progress and its report can be written as it goes.
	Observer Observer
}

// Observer follows a replay. Calls come from Run's goroutine, in report
// order.
type Observer interface {
	// Replaying is called before the i-th (from 1) of n templates.
	Replaying(i, n int, tmpl *unstructured.Unstructured)
	// Object is called with each object's report once it is complete.
	Object(obj ObjectReport)
}

// Outcomes of an operation or object.
const (
	Same    = "same"
	Changed = "changed"
	Error   = "error"
)

// Report is the result of a replay.
type Report struct {
	Objects []ObjectReport `json:"objects"`
	// Skipped lists operations that were not run and why.
	Skipped []string `json:"skipped,omitempty"`
	Summary Summary  `json:"summary"`

	observer Observer
}

// Summary counts objects by outcome.
type Summary struct {
	Objects int `json:"objects"`
	Same    int `json:"same"`
	Changed int `json:"changed"`
	Errors  int `json:"errors"`
}

// String is "N objects: a same, b changed, c error".
func (s Summary) String() string {
	return fmt.Sprintf("%d objects: %d same, %d changed, %d error", s.Objects, s.Same, s.Changed, s.Errors)
}

// ObjectReport is one template, or one member copy (Cluster set).
type ObjectReport struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Namespace  string            `json:"namespace,omitempty"`
	Name       string            `json:"name"`
	Cluster    string            `json:"cluster,omitempty"`
	Outcome    string            `json:"outcome"`
	Operations []OperationReport `json:"operations"`
}

// OperationReport compares one operation under both configurations.
type OperationReport struct {
	Operation string `json:"operation"`
	// Active and New name the answering layer and hook of each.
	Active  string              `json:"active"`
	New     string              `json:"new"`
	Outcome string              `json:"outcome"`
	Changes []objectdiff.Change `json:"changes,omitempty"`
	// ActiveError and NewError are the errors of each configuration.
	ActiveError string `json:"activeError,omitempty"`
	NewError    string `json:"newError,omitempty"`
}

var memberSide = map[configv1alpha1.InterpreterOperation]bool{
	configv1alpha1.InterpreterOperationRetain:          true,
	configv1alpha1.InterpreterOperationInterpretStatus: true,
	configv1alpha1.InterpreterOperationInterpretHealth: true,
}

// Run replays targets on the live objects with active and candidate. It
// lists the templates of every target first, so that progress counts
// against the whole run.
func Run(ctx context.Context, src Sources, active, candidate Interpreter, targets []Target, o Options) (*Report, error) {
	r := &Report{Objects: []ObjectReport{}, observer: o.Observer}
	var work []targetWork
	total := 0
	for _, t := range targets {
		w, err := r.list(ctx, src, t, o)
		if err != nil {
			return nil, err
		}
		work = append(work, w)
		total += len(w.templates)
	}
	done := 0
	for _, w := range work {
		for i := range w.templates {
			done++
			tmpl := &w.templates[i]
			if o.Observer != nil {
				o.Observer.Replaying(done, total, tmpl)
			}
			r.template(ctx, src, active, candidate, w, tmpl)
		}
	}
	for _, obj := range r.Objects {
		r.Summary.Objects++
		switch obj.Outcome {
		case Same:
			r.Summary.Same++
		case Changed:
			r.Summary.Changed++
		default:
			r.Summary.Errors++
		}
	}
	return r, nil
}

// targetWork is a target's templates and its operations split by side.
type targetWork struct {
	tmplOps, memberOps []configv1alpha1.InterpreterOperation
	templates          []unstructured.Unstructured
}

// list reads t's templates, sorted by namespace and name.
func (r *Report) list(ctx context.Context, src Sources, t Target, o Options) (targetWork, error) {
	var w targetWork
	for _, op := range t.Operations {
		if memberSide[op] {
			w.memberOps = append(w.memberOps, op)
		} else {
			w.tmplOps = append(w.tmplOps, op)
		}
	}
	if len(w.memberOps) > 0 && !o.Observed {
		for _, op := range w.memberOps {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s of %s runs on member objects: add --observed", op, t.GVK.Kind))
		}
		w.memberOps = nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(t.GVK.GroupVersion().WithKind(t.GVK.Kind + "List"))
	var opts []client.ListOption
	if o.Namespace != "" {
		opts = append(opts, client.InNamespace(o.Namespace))
	}
	if err := src.Client.List(ctx, list, opts...); err != nil {
		return w, fmt.Errorf("list %s: %w", t.GVK.Kind, err)
	}
	sort.Slice(list.Items, func(i, j int) bool {
		a, b := &list.Items[i], &list.Items[j]
		if a.GetNamespace() != b.GetNamespace() {
			return a.GetNamespace() < b.GetNamespace()
		}
		return a.GetName() < b.GetName()
	})
	w.templates = list.Items
	return w, nil
}

// template replays w's operations on tmpl and, with member-side ones, on
// its member copies.
func (r *Report) template(ctx context.Context, src Sources, active, candidate Interpreter, w targetWork, tmpl *unstructured.Unstructured) {
	b := binding(ctx, src.Client, tmpl)
	if len(w.tmplOps) > 0 {
		obj := ObjectReport{APIVersion: tmpl.GetAPIVersion(), Kind: tmpl.GetKind(), Namespace: tmpl.GetNamespace(), Name: tmpl.GetName()}
		for _, op := range w.tmplOps {
			if rep, ok := compare(ctx, active, candidate, op, tmpl, nil, b); ok {
				obj.Operations = append(obj.Operations, rep)
			}
		}
		r.add(obj)
	}
	if len(w.memberOps) > 0 && b != nil {
		r.members(ctx, src, active, candidate, w.memberOps, tmpl, b)
	}
}

func (r *Report) add(obj ObjectReport) {
	if len(obj.Operations) == 0 {
		return
	}
	obj.Outcome = Same
	for _, op := range obj.Operations {
		switch {
		case op.Outcome == Error:
			obj.Outcome = Error
		case op.Outcome == Changed && obj.Outcome == Same:
			obj.Outcome = Changed
		}
	}
	r.Objects = append(r.Objects, obj)
	if r.observer != nil {
		r.observer.Object(obj)
	}
}

// binding reads the template's binding, nil when it has none.
func binding(ctx context.Context, c client.Client, tmpl *unstructured.Unstructured) workv1alpha2.Binding {
	b, err := templatebinding.Get(ctx, c, tmpl.GetNamespace(), tmpl.GetKind(), tmpl.GetName())
	if err != nil {
		return nil
	}
	return b
}

// members replays the member-side operations on each member copy of tmpl
// (desired: the Work's manifest; observed: the member object).
func (r *Report) members(ctx context.Context, src Sources, active, candidate Interpreter, ops []configv1alpha1.InterpreterOperation, tmpl *unstructured.Unstructured, b workv1alpha2.Binding) {
	var works workv1alpha1.WorkList
	id := workv1alpha2.PermanentID(b)
	if id == "" {
		return
	}
	if err := src.Client.List(ctx, &works, client.MatchingLabels{b.PermanentIDLabel(): id}); err != nil {
		r.Skipped = append(r.Skipped, fmt.Sprintf("Works of %s: %v", workv1alpha2.BindingName(b), err))
		return
	}
	sort.Slice(works.Items, func(i, j int) bool { return works.Items[i].Namespace < works.Items[j].Namespace })
	for i := range works.Items {
		w := &works.Items[i]
		cluster, err := names.ClusterOfExecutionSpace(w.Namespace)
		if err != nil || len(w.Spec.Workload.Manifests) == 0 {
			continue
		}
		desired := &unstructured.Unstructured{}
		if err := desired.UnmarshalJSON(w.Spec.Workload.Manifests[0].Raw); err != nil {
			continue
		}
		obj := ObjectReport{APIVersion: tmpl.GetAPIVersion(), Kind: tmpl.GetKind(), Namespace: tmpl.GetNamespace(), Name: tmpl.GetName(), Cluster: cluster}
		observed, err := memberObject(ctx, src, cluster, desired)
		if err != nil {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s %s in %s: %v", tmpl.GetKind(), key(tmpl), cluster, err))
			continue
		}
		for _, op := range ops {
			if rep, ok := compare(ctx, active, candidate, op, desired, observed, nil); ok {
				obj.Operations = append(obj.Operations, rep)
			}
		}
		r.add(obj)
	}
}

func memberObject(ctx context.Context, src Sources, cluster string, desired *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if src.Member == nil {
		return nil, fmt.Errorf("members are not readable")
	}
	dyn, err := src.Member(ctx, cluster)
	if err != nil {
		return nil, fmt.Errorf("member unreachable: %w", err)
	}
	gvk := desired.GroupVersionKind()
	m, err := src.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	obj, err := dyn.Resource(m.Resource).Namespace(desired.GetNamespace()).Get(ctx, desired.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("not created in the member yet")
	}
	return obj, err
}

func key(obj *unstructured.Unstructured) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}

// compare runs op with both configurations. For template-side operations
// obj is the template and b its binding (ReviseReplica revises to the
// binding's first cluster's replicas, AggregateStatus aggregates its
// status items); for member-side ones obj is the Work's manifest and
// observed the member copy. ok is false when op cannot run on this object
// (AggregateStatus of a template without binding).
func compare(ctx context.Context, active, candidate Interpreter, op configv1alpha1.InterpreterOperation, obj, observed *unstructured.Unstructured, b workv1alpha2.Binding) (OperationReport, bool) {
	args := customization.Args{Desired: obj}
	subject := obj
	switch op {
	case configv1alpha1.InterpreterOperationRetain:
		args.Observed = observed
	case configv1alpha1.InterpreterOperationInterpretStatus, configv1alpha1.InterpreterOperationInterpretHealth:
		args = customization.Args{Observed: observed}
		subject = observed
	case configv1alpha1.InterpreterOperationReviseReplica:
		args.Replicas = 1
		if b != nil && len(b.BindingSpec().Clusters) > 0 {
			args.Replicas = int64(b.BindingSpec().Clusters[0].Replicas)
		}
	case configv1alpha1.InterpreterOperationAggregateStatus:
		if b == nil {
			return OperationReport{}, false
		}
		args.StatusItems = b.BindingStatus().AggregatedStatus
	}
	rep := OperationReport{Operation: string(op)}
	run := func(i Interpreter) (string, any, error) {
		a, err := i.Answerer(subject.GroupVersionKind(), op)
		if err != nil {
			return "none", nil, err
		}
		cp := args
		cp.Desired, cp.Observed = deepCopy(args.Desired), deepCopy(args.Observed)
		res, err := customization.RunOn(ctx, i, op, deepCopy(subject), cp)
		if err != nil {
			return a.String(), nil, err
		}
		out := map[string]any{}
		for _, r := range res {
			out[r.Name] = r.Value
		}
		return a.String(), out, nil
	}
	var oldV, newV any
	var oldErr, newErr error
	rep.Active, oldV, oldErr = run(active)
	rep.New, newV, newErr = run(candidate)
	if oldErr != nil {
		rep.ActiveError = oldErr.Error()
	}
	if newErr != nil {
		rep.NewError = newErr.Error()
		rep.Outcome = Error
		return rep, true
	}
	if oldErr != nil {
		rep.Outcome = Changed
		return rep, true
	}
	changes, err := objectdiff.Values(oldV, newV)
	if err != nil {
		rep.Outcome, rep.NewError = Error, err.Error()
		return rep, true
	}
	rep.Changes = changes
	rep.Outcome = Same
	if len(changes) > 0 {
		rep.Outcome = Changed
	}
	return rep, true
}

func deepCopy(u *unstructured.Unstructured) *unstructured.Unstructured {
	if u == nil {
		return nil
	}
	return u.DeepCopy()
}
