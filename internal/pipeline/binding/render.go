package binding

import (
	"context"
	"fmt"
	"strconv"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/pipeline/binding/overrides"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// renderer turns a binding's template into the desired Work of each
// target cluster. What is shared by all clusters is computed once.
type renderer struct {
	interpreter Interpreter
	b           *binding
	tmpl        *unstructured.Unstructured
	policies    *overrides.Set
	// completions are the Job completions per cluster, nil when the
	// template's completions are not divided.
	completions map[string]int64
	// revise: the binding is a workload with a ReviseReplica hook.
	revise bool
	// preserved are the labels injected into the manifests
	// (StatefulFailoverInjection), nil for none.
	preserved *preserved
}

func newRenderer(interp Interpreter, b *binding, tmpl *unstructured.Unstructured, policies *overrides.Set, targets []workv1alpha2.TargetCluster) (*renderer, error) {
	completions, err := jobCompletions(b, tmpl, targets)
	if err != nil {
		return nil, err
	}
	return &renderer{
		interpreter: interp, b: b, tmpl: tmpl, policies: policies, completions: completions,
		revise: b.spec.IsWorkload() && interp.HookEnabled(tmpl.GroupVersionKind(), configv1alpha1.InterpreterOperationReviseReplica),
	}, nil
}

// render prepares the Work of one target: replicas revised, completions
// divided, overrides applied (they have the last word), Karmada's metadata
// added, pruned. It also returns what the overrides applied.
func (rd *renderer) render(ctx context.Context, t workv1alpha2.TargetCluster, cluster *clusterv1alpha1.Cluster) (*workwriter.Desired, *overrides.Result, error) {
	obj, err := rd.workload(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	applied, err := rd.policies.Apply(obj, cluster)
	if err != nil {
		return nil, nil, err
	}
	d, err := rd.desiredWork(logr.FromContextOrDiscard(ctx), obj, t, applied)
	return d, applied, err
}

// workload is a copy of the template with the target's replicas and Job
// completions.
func (rd *renderer) workload(ctx context.Context, t workv1alpha2.TargetCluster) (*unstructured.Unstructured, error) {
	obj := rd.tmpl.DeepCopy()
	if !rd.b.spec.IsWorkload() {
		return obj, nil
	}
	if rd.revise {
		revised, err := rd.interpreter.ReviseReplica(ctx, obj, int64(t.Replicas))
		if err != nil {
			return nil, fmt.Errorf("revise replicas to %d: %w", t.Replicas, err)
		}
		obj = revised
	}
	if rd.completions != nil {
		if err := setSpecIntIfPresent(obj, "completions", rd.completions[t.Name]); err != nil {
			return nil, fmt.Errorf("set Job completions to %d: %w", rd.completions[t.Name], err)
		}
	}
	return obj, nil
}

// desiredWork computes the Work labels and annotations, merges the
// binding's into the manifest, and prepares the manifest.
func (rd *renderer) desiredWork(logger logr.Logger, obj *unstructured.Unstructured, t workv1alpha2.TargetCluster, applied *overrides.Result) (*workwriter.Desired, error) {
	labels := rd.b.ownerLabels()
	manifestLabels := workwriter.MetaMap(obj, "labels")
	workwriter.MergeInto(manifestLabels, labels)
	annotations := rd.b.ownerAnnotations()
	manifestAnnotations := workwriter.MetaMap(obj, "annotations")
	if gen := obj.GetGeneration(); gen > 0 {
		manifestAnnotations[names.ResourceTemplateGenerationAnnotation] = strconv.FormatInt(gen, 10)
	}
	workwriter.MergeInto(manifestAnnotations, annotations)
	conflict := conflictResolution(logger, obj, rd.b.spec.ConflictResolution)
	annotations[names.ConflictResolutionAnnotation] = conflict
	if err := recordApplied(annotations, applied); err != nil {
		return nil, err
	}
	if rd.preserved.appliesTo(t.Name) {
		workwriter.MergeInto(manifestLabels, rd.preserved.labels)
	}
	d := &workwriter.Desired{
		Cluster:     t.Name,
		Namespace:   names.ExecutionSpace(t.Name),
		Name:        names.WorkName(obj.GetKind(), obj.GetName(), obj.GetNamespace()),
		Labels:      labels,
		Annotations: annotations,
		Suspend:     rd.b.spec.Suspension.DispatchingSuspendedOn(t.Name),
		Preserve:    rd.b.spec.PreserveResourcesOnDeletion != nil && *rd.b.spec.PreserveResourcesOnDeletion,
		Manifest:    obj,
		Owned:       appliedOverrideKeys,
	}
	manifestAnnotations[names.ConflictResolutionAnnotation] = conflict
	if err := workwriter.PrepareManifest(obj, d.Namespace, d.Name); err != nil {
		return nil, err
	}
	return d, nil
}

// appliedOverrideKeys are Work annotations the binding controller writes
// only when overrides applied.
var appliedOverrideKeys = []string{names.AppliedClusterOverridesAnnotation, names.AppliedOverridesAnnotation}

// conflictResolution is the template's own conflict-resolution annotation
// when it is "overwrite" or "abort", else the binding's choice (default
// abort).
func conflictResolution(logger logr.Logger, obj *unstructured.Unstructured, fromBinding policyv1alpha1.ConflictResolution) string {
	switch v, _ := workwriter.MetaMap(obj, "annotations")[names.ConflictResolutionAnnotation].(string); v {
	case names.ConflictResolutionOverwrite, names.ConflictResolutionAbort:
		return v
	case "":
	default:
		logger.Info("ignoring an invalid conflict-resolution annotation on the template", "value", v)
	}
	if fromBinding == policyv1alpha1.ConflictOverwrite {
		return names.ConflictResolutionOverwrite
	}
	return names.ConflictResolutionAbort
}

// recordApplied adds the applied-overrides annotations, when not empty.
func recordApplied(annotations map[string]string, applied *overrides.Result) error {
	cops, ops, err := applied.Annotations()
	if err != nil {
		return fmt.Errorf("record applied overrides: %w", err)
	}
	if cops != "" {
		annotations[names.AppliedClusterOverridesAnnotation] = cops
	}
	if ops != "" {
		annotations[names.AppliedOverridesAnnotation] = ops
	}
	return nil
}
