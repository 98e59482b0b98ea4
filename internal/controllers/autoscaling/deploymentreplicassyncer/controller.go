// Package deploymentreplicassyncer is Karmada's deployment-replicas-syncer
// ("deploymentReplicasSyncer", off by default): for a Deployment template
// whose member replicas are kept by the members (label
// resourcetemplate.karmada.io/retain-replicas=true, set by
// hpaScaleTargetMarker when a propagated HPA scales it), it copies the
// replicas the members run, as aggregated into the template's status, back
// into the template's spec.replicas, once every scheduled member has
// reported them; so the template, its binding and quotas show reality.
package deploymentreplicassyncer

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/templatebinding"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: Deployments' replicas written back from their bindings.
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings,verbs=get;list;watch

// notReadyRetry is how soon a Deployment whose members have not all
// reported is looked at again (Karmada's 1 s).
const notReadyRetry = time.Second

// Reconciler syncs one Deployment template's replicas; its requests are
// Deployments.
type Reconciler struct {
	client client.Client
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler { return &Reconciler{client: deps.Client} }

// SetupWithManager registers the controller with mgr: updates of
// Deployments labelled retain-replicas that gained the label or changed
// spec.replicas or status.replicas (as in Karmada, creations and a restart
// trigger nothing).
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.DeploymentReplicasSyncerControllerName).
		For(&appsv1.Deployment{}, builder.WithPredicates(replicasChanged())).
		Complete(r)
}

func replicasChanged() predicate.Funcs {
	return eventfilter.UpdatesOf(func(o, n *appsv1.Deployment) bool {
		if n.Labels[names.RetainReplicasLabel] != "true" {
			return false
		}
		if o.Labels[names.RetainReplicasLabel] != "true" {
			return true
		}
		if o.Spec.Replicas == nil || n.Spec.Replicas == nil {
			return false
		}
		return *o.Spec.Replicas != *n.Spec.Replicas || o.Status.Replicas != n.Status.Replicas
	})
}

// Reconcile sets spec.replicas to status.replicas when the binding says
// every member has reported.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	rb := &workv1alpha2.ResourceBinding{}
	if err := r.client.Get(ctx, templatebinding.Key(req.Namespace, "Deployment", req.Name), rb); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !divided(rb) {
		return reconcile.Result{}, nil
	}
	d := &appsv1.Deployment{}
	if err := r.client.Get(ctx, req.NamespacedName, d); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if d.Spec.Replicas != nil && *d.Spec.Replicas == d.Status.Replicas {
		return reconcile.Result{}, nil
	}
	if !membersReported(rb, d) {
		return reconcile.Result{RequeueAfter: notReadyRetry}, nil
	}
	replicas := d.Status.Replicas
	d.Spec.Replicas = &replicas
	if err := r.client.Update(ctx, d); err != nil {
		return reconcile.Result{}, fmt.Errorf("set replicas of Deployment %s to %d: %w", req.NamespacedName, replicas, err)
	}
	return reconcile.Result{}, nil
}

// divided reports whether the binding divides replicas (no
// replicaScheduling means Duplicated).
func divided(rb *workv1alpha2.ResourceBinding) bool {
	p := rb.Spec.Placement
	return p != nil && p.ReplicaScheduling != nil && p.ReplicaScheduling.ReplicaSchedulingType == policyv1alpha1.ReplicaSchedulingTypeDivided
}

// membersReported is Karmada's readiness gate: the binding was scheduled
// for the template's current replicas, every scheduled cluster reported a
// Deployment status with replicas, and those replicas add up to the
// template's aggregated status.replicas.
func membersReported(rb *workv1alpha2.ResourceBinding, d *appsv1.Deployment) bool {
	if d.Spec.Replicas == nil || rb.Spec.Replicas != *d.Spec.Replicas || rb.Generation != rb.Status.SchedulerObservedGeneration {
		return false
	}
	if len(rb.Status.AggregatedStatus) != len(rb.Spec.Clusters) {
		return false
	}
	var sum int32
	for _, item := range rb.Status.AggregatedStatus {
		if item.Status == nil {
			return false
		}
		var st appsv1.DeploymentStatus
		if err := json.Unmarshal(item.Status.Raw, &st); err != nil || st.Replicas <= 0 {
			return false
		}
		sum += st.Replicas
	}
	return sum == d.Status.Replicas
}
