package templatecontroller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/templatebinding"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: the detector creates and updates the bindings of the templates it
// claims (read fresh through the API reader on conflict).
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch;create;update

// ensureBinding creates or updates the template's binding from policy p and
// reports whether it wrote anything. Only the fields the detector owns are
// overwritten; scheduling results and status are never touched.
func (r *Reconciler) ensureBinding(ctx context.Context, obj *unstructured.Unstructured, p *policyindex.Policy) (bool, error) {
	desired, err := r.desiredSpec(ctx, obj, p)
	if err != nil {
		return false, err
	}
	existing, err := r.getBinding(ctx, obj)
	if apierrors.IsNotFound(err) {
		// Not in the cache: almost always a new binding, so create it
		// without a read first. Only a cache lagging behind a binding
		// created moments ago costs a failed create and a read, whose
		// result (or error) replaces the cache's NotFound.
		created, createErr := r.createBinding(ctx, obj, p, existing.DeepCopyObject().(workv1alpha2.Binding), desired)
		if !apierrors.IsAlreadyExists(createErr) || r.apiReader == nil {
			return created, createErr
		}
		if err = r.apiReader.Get(ctx, client.ObjectKeyFromObject(existing), existing); err != nil {
			err = fmt.Errorf("read binding %s after a create conflict: %w", existing.GetName(), err)
		}
	}
	if err != nil {
		return false, err
	}
	if owner := metav1.GetControllerOf(existing); owner != nil && owner.UID != obj.GetUID() {
		return false, fmt.Errorf("binding %s is owned by another %s (uid %s); waiting for it to be garbage collected", existing.GetName(), owner.Kind, owner.UID)
	}
	updated := existing.DeepCopyObject().(workv1alpha2.Binding)
	setBindingMeta(updated, obj, p)
	mergeSpec(updated.BindingSpec(), desired, updated.Namespaced())
	if equality.Semantic.DeepEqual(existing, updated) {
		return false, nil
	}
	if err := r.client.Update(ctx, updated); err != nil {
		return false, fmt.Errorf("update binding %s: %w", updated.GetName(), err)
	}
	return true, nil
}

// createBinding creates b as the template's binding and reports whether it
// did; an AlreadyExists error is returned unwrapped-compatible (%w).
func (r *Reconciler) createBinding(ctx context.Context, obj *unstructured.Unstructured, p *policyindex.Policy, b workv1alpha2.Binding, desired *workv1alpha2.ResourceBindingSpec) (bool, error) {
	setBindingMeta(b, obj, p)
	*b.BindingSpec() = *desired
	if err := r.client.Create(ctx, b); err != nil {
		return false, fmt.Errorf("create binding %s: %w", b.GetName(), err)
	}
	return true, nil
}

// getBinding returns the ResourceBinding (namespaced template) or
// ClusterResourceBinding of a template, from the cache. On error the
// returned object is still an empty binding with the key set.
func (r *Reconciler) getBinding(ctx context.Context, obj *unstructured.Unstructured) (workv1alpha2.Binding, error) {
	return templatebinding.Get(ctx, r.client, obj.GetNamespace(), obj.GetKind(), obj.GetName())
}

// setBindingMeta merges the claim and what makes b the template's binding
// (permanent id, finalizer, controller reference, spec.resource) into b.
func setBindingMeta(b workv1alpha2.Binding, obj *unstructured.Unstructured, p *policyindex.Policy) {
	policyindex.SetClaim(b, p)
	templatebinding.Bind(b, templatebinding.ReferenceTo(obj), templatebinding.Controlled)
}

// desiredSpec is the part of the binding spec the detector owns.
func (r *Reconciler) desiredSpec(ctx context.Context, obj *unstructured.Unstructured, p *policyindex.Policy) (*workv1alpha2.ResourceBindingSpec, error) {
	ps := withWebhookDefaults(p.Spec)
	spec := &workv1alpha2.ResourceBindingSpec{
		Resource:                    templatebinding.ReferenceTo(obj),
		PropagateDeps:               ps.PropagateDeps && obj.GetNamespace() != "",
		SchedulerName:               ps.SchedulerName,
		Placement:                   &ps.Placement,
		Failover:                    ps.Failover,
		ConflictResolution:          ps.ConflictResolution,
		PreserveResourcesOnDeletion: ps.PreserveResourcesOnDeletion,
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = names.DefaultSchedulerName
	}
	if ps.Suspension != nil {
		spec.Suspension = &workv1alpha2.Suspension{Suspension: *ps.Suspension}
	}
	if err := r.interpretWorkload(ctx, obj, spec); err != nil {
		return nil, err
	}
	if r.opts.WorkloadAffinity && obj.GetNamespace() != "" {
		spec.WorkloadAffinityGroups = workloadAffinityGroups(ps.Placement.WorkloadAffinity, obj.GetLabels())
	}
	if r.opts.PriorityBasedScheduling && ps.SchedulePriority != nil && obj.GetNamespace() != "" {
		priority, err := r.schedulePriority(ctx, ps.SchedulePriority)
		if err != nil {
			return nil, err
		}
		spec.SchedulePriority = priority
	}
	return spec, nil
}

// mergeSpec overwrites the detector-owned fields of spec with desired and
// merges suspension, keeping the binding-owned scheduling flag. The
// detector owns schedulePriority and workloadAffinityGroups of
// ResourceBindings only (as in Karmada); those of a ClusterResourceBinding
// are kept.
func mergeSpec(spec, desired *workv1alpha2.ResourceBindingSpec, namespaced bool) {
	spec.Resource = desired.Resource
	spec.Replicas, spec.ReplicaRequirements, spec.Components = desired.Replicas, desired.ReplicaRequirements, desired.Components
	spec.PropagateDeps = desired.PropagateDeps
	spec.SchedulerName, spec.Placement, spec.Failover = desired.SchedulerName, desired.Placement, desired.Failover
	spec.ConflictResolution, spec.PreserveResourcesOnDeletion = desired.ConflictResolution, desired.PreserveResourcesOnDeletion
	if namespaced {
		spec.SchedulePriority, spec.WorkloadAffinityGroups = desired.SchedulePriority, desired.WorkloadAffinityGroups
	}
	spec.Suspension = mergeSuspension(spec.Suspension, desired.Suspension)
}

func mergeSuspension(existing, fromPolicy *workv1alpha2.Suspension) *workv1alpha2.Suspension {
	var scheduling *bool
	if existing != nil {
		scheduling = existing.Scheduling
	}
	if fromPolicy == nil && scheduling == nil {
		return nil
	}
	out := &workv1alpha2.Suspension{Scheduling: scheduling}
	if fromPolicy != nil {
		out.Suspension = fromPolicy.Suspension
	}
	if out.Dispatching == nil && out.DispatchingOnClusters == nil && out.Scheduling == nil {
		return nil
	}
	return out
}
