package templatecontroller

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// RBAC: the dependent overrides a policy waits for are read.
// +kubebuilder:rbac:groups=policy.karmada.io,resources=overridepolicies;clusteroverridepolicies,verbs=get;list;watch

var errWaitingDependentOverride = errors.New("waiting for dependent overrides")

// checkDependentOverrides fails until every override the policy depends on exists.
func (r *Reconciler) checkDependentOverrides(ctx context.Context, p *policyindex.Policy) error {
	for _, name := range p.Spec.DependentOverrides {
		var obj client.Object = &policyv1alpha1.ClusterOverridePolicy{}
		key := types.NamespacedName{Name: name}
		if !p.Cluster {
			obj, key.Namespace = &policyv1alpha1.OverridePolicy{}, p.Namespace
		}
		if err := r.client.Get(ctx, key, obj); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("%w: %s of policy %s", errWaitingDependentOverride, name, p.Key())
			}
			return err
		}
	}
	return nil
}
