package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestClusterOverridePolicyOnSyncedNamespace: namespaces reach every member
// without a policy (namespace sync), and a ClusterOverridePolicy selecting
// the Namespace changes it only in the cluster its rule targets, recorded
// in the Work's applied-cluster-overrides annotation.
func TestClusterOverridePolicyOnSyncedNamespace(t *testing.T) {
	membersReady(t)
	const ns = "cop-team"
	cop := &policyv1alpha1.ClusterOverridePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-label"},
		Spec: policyv1alpha1.OverrideSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "Namespace", Name: ns}},
			OverrideRules: []policyv1alpha1.RuleWithCluster{{
				TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}},
				Overriders: policyv1alpha1.Overriders{LabelsOverrider: []policyv1alpha1.LabelAnnotationOverrider{{
					Operator: policyv1alpha1.OverriderOpAdd, Value: map[string]string{"team": "blue"},
				}}},
			}},
		},
	}
	createAll(t, cop, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})

	for member, want := range map[string]string{"member1": "", "member2": "blue"} {
		harness.Eventually(t, fmt.Sprintf("namespace %s in %s has team=%q", ns, member, want), func(ctx context.Context) (bool, error) {
			got := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
			if err := memberGet(ctx, member, got); err != nil {
				return false, err
			}
			if got.Labels["team"] != want {
				return false, fmt.Errorf("label team=%q", got.Labels["team"])
			}
			return true, nil
		}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}
	w := &workv1alpha1.Work{}
	if err := env.Client.Get(context.Background(), workOf("member2", "Namespace", ns, ""), w); err != nil {
		t.Fatalf("Work of namespace %s in member2: %v", ns, err)
	}
	if a := w.Annotations[names.AppliedClusterOverridesAnnotation]; a == "" {
		t.Errorf("Work %s has no %s annotation", w.Name, names.AppliedClusterOverridesAnnotation)
	}
}
