package cronfederatedhpa

import (
	"context"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/templatescale"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// RBAC: a rule scales a FederatedHPA (update) or the target's scale
// subresource.
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=federatedhpas,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=core,resources=replicationcontrollers/scale,verbs=get;update
// +kubebuilder:rbac:groups=apps;batch;autoscaling;policy;networking.k8s.io;discovery.k8s.io;storage.k8s.io;scheduling.k8s.io;node.k8s.io;apps.kruise.io;argoproj.io;batch.volcano.sh;flink.apache.org;helm.toolkit.fluxcd.io;kustomize.toolkit.fluxcd.io;source.toolkit.fluxcd.io;kubeflow.org;kyverno.io;ray.io;sparkoperator.k8s.io,resources=*/scale,verbs=get;update

// scale applies rule to the target: the bounds of a FederatedHPA, or the
// replicas of a resource template through its scale subresource. The
// target is read live at every fire.
func (r *Reconciler) scale(ctx context.Context, namespace string, target autoscalingv2.CrossVersionObjectReference, rule autoscalingv1alpha1.CronFederatedHPARule) error {
	gv, err := schema.ParseGroupVersion(target.APIVersion)
	if err != nil {
		return fmt.Errorf("scale target apiVersion %q: %w", target.APIVersion, err)
	}
	if gv == autoscalingv1alpha1.GroupVersion {
		if target.Kind != "FederatedHPA" {
			return fmt.Errorf("CronFederatedHPA do not support scale target %s/%s", target.APIVersion, target.Kind)
		}
		return r.scaleFederatedHPA(ctx, client.ObjectKey{Namespace: namespace, Name: target.Name}, rule)
	}
	return r.scaleWorkload(ctx, gv.WithKind(target.Kind), client.ObjectKey{Namespace: namespace, Name: target.Name}, rule)
}

// scaleFederatedHPA sets the FederatedHPA's minReplicas and maxReplicas
// the rule gives, updating it only when they differ.
func (r *Reconciler) scaleFederatedHPA(ctx context.Context, key client.ObjectKey, rule autoscalingv1alpha1.CronFederatedHPARule) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		fhpa := &autoscalingv1alpha1.FederatedHPA{}
		if err := r.client.Get(ctx, key, fhpa); err != nil {
			return err
		}
		changed := false
		if rule.TargetMaxReplicas != nil && fhpa.Spec.MaxReplicas != *rule.TargetMaxReplicas {
			fhpa.Spec.MaxReplicas = *rule.TargetMaxReplicas
			changed = true
		}
		if rule.TargetMinReplicas != nil && (fhpa.Spec.MinReplicas == nil || *fhpa.Spec.MinReplicas != *rule.TargetMinReplicas) {
			minReplicas := *rule.TargetMinReplicas
			fhpa.Spec.MinReplicas = &minReplicas
			changed = true
		}
		if !changed {
			return nil
		}
		if lower := fhpa.Spec.MinReplicas; lower != nil && *lower > fhpa.Spec.MaxReplicas {
			return fmt.Errorf("minReplicas %d would exceed maxReplicas %d", *lower, fhpa.Spec.MaxReplicas)
		}
		return r.client.Update(ctx, fhpa)
	})
	if err != nil {
		return fmt.Errorf("scale FederatedHPA %s: %w", key, err)
	}
	return nil
}

// scaleWorkload sets spec.replicas of the template's scale subresource to
// the rule's targetReplicas when it differs.
func (r *Reconciler) scaleWorkload(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey, rule autoscalingv1alpha1.CronFederatedHPARule) error {
	if rule.TargetReplicas == nil {
		return fmt.Errorf("rule %s sets no targetReplicas for %s %s", rule.Name, gvk.Kind, key)
	}
	_, err := templatescale.Set(ctx, r.client, gvk, key, *rule.TargetReplicas)
	return err
}
