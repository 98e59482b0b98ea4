package templatecontroller

import (
	"context"
	"fmt"

	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: the PriorityClass a policy names gives the binding its priority.
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=get;list;watch

// interpretWorkload fills what the scheduler needs to know about the
// template's pods into spec, as Karmada's detector does: the components
// (pod templates) when the MultiplePodTemplatesScheduling gate is on and
// a layer interprets components for the kind; otherwise the replicas and
// per-replica requirements when a layer interprets replicas. A kind with
// neither hook gets nothing and is propagated whole.
func (r *Reconciler) interpretWorkload(ctx context.Context, obj *unstructured.Unstructured, spec *workv1alpha2.ResourceBindingSpec) error {
	switch r.workloadOperation(obj) {
	case configv1alpha1.InterpreterOperationInterpretComponent:
		components, err := r.interpreter.GetComponents(ctx, obj)
		if err != nil {
			return &interpreterError{op: configv1alpha1.InterpreterOperationInterpretComponent, err: err}
		}
		spec.Components = components
		return nil
	case configv1alpha1.InterpreterOperationInterpretReplica:
	default:
		return nil
	}
	replicas, reqs, err := r.interpreter.GetReplicas(ctx, obj)
	if err != nil {
		return &interpreterError{op: configv1alpha1.InterpreterOperationInterpretReplica, err: err}
	}
	// Under ResourceQuotaEstimate the requirements name the workload's
	// namespace, for the estimators' quota checks.
	if r.opts.ResourceQuotaEstimate && reqs != nil && reqs.Namespace == "" {
		reqs.Namespace = obj.GetNamespace()
	}
	spec.Replicas, spec.ReplicaRequirements = replicas, reqs
	return nil
}

// workloadOperation is the interpreter operation interpretWorkload runs
// for obj's kind, or "" when none.
func (r *Reconciler) workloadOperation(obj *unstructured.Unstructured) configv1alpha1.InterpreterOperation {
	gvk := obj.GroupVersionKind()
	if r.opts.MultiplePodTemplatesScheduling && r.interpreter.HookEnabled(gvk, configv1alpha1.InterpreterOperationInterpretComponent) {
		return configv1alpha1.InterpreterOperationInterpretComponent
	}
	if r.interpreter.HookEnabled(gvk, configv1alpha1.InterpreterOperationInterpretReplica) {
		return configv1alpha1.InterpreterOperationInterpretReplica
	}
	return ""
}

// schedulePriority resolves a policy's schedulePriority into the
// binding's: the value of the Kubernetes PriorityClass it names (the only
// source Karmada supports). A missing PriorityClass is an error, so the
// template is retried until it exists.
func (r *Reconciler) schedulePriority(ctx context.Context, sp *policyv1alpha1.SchedulePriority) (*workv1alpha2.SchedulePriority, error) {
	if sp.PriorityClassSource != policyv1alpha1.KubePriorityClass {
		return nil, fmt.Errorf("schedulePriority.priorityClassSource %q is not supported (only %s)", sp.PriorityClassSource, policyv1alpha1.KubePriorityClass)
	}
	pc := &schedulingv1.PriorityClass{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: sp.PriorityClassName}, pc); err != nil {
		return nil, fmt.Errorf("schedulePriority: get PriorityClass %s: %w", sp.PriorityClassName, err)
	}
	return &workv1alpha2.SchedulePriority{Priority: pc.Value}, nil
}

// workloadAffinityGroups names the template's groups under the policy's
// workloadAffinity: "<key>=<value>" for each term whose groupByLabelKey is
// one of the template's labels (an empty value counts). Nil when neither
// term applies, so that the binding carries no empty groups.
func workloadAffinityGroups(wa *policyv1alpha1.WorkloadAffinity, labels map[string]string) *workv1alpha2.WorkloadAffinityGroups {
	if wa == nil {
		return nil
	}
	groups := &workv1alpha2.WorkloadAffinityGroups{}
	if wa.Affinity != nil {
		if v, ok := labels[wa.Affinity.GroupByLabelKey]; ok {
			groups.AffinityGroup = wa.Affinity.GroupByLabelKey + "=" + v
		}
	}
	if wa.AntiAffinity != nil {
		if v, ok := labels[wa.AntiAffinity.GroupByLabelKey]; ok {
			groups.AntiAffinityGroup = wa.AntiAffinity.GroupByLabelKey + "=" + v
		}
	}
	if groups.AffinityGroup == "" && groups.AntiAffinityGroup == "" {
		return nil
	}
	return groups
}
