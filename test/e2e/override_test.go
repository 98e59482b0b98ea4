package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestOverridePolicyPerCluster: an OverridePolicy whose rule targets only
// member2 changes the image tag there; member1 keeps the template's image.
func TestOverridePolicyPerCluster(t *testing.T) {
	membersReady(t)
	const name = "ovr-web"
	op := &policyv1alpha1.OverridePolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name + "-override"},
		Spec: policyv1alpha1.OverrideSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}},
			OverrideRules: []policyv1alpha1.RuleWithCluster{{
				TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}},
				Overriders: policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{{
					Component: policyv1alpha1.Tag, Operator: policyv1alpha1.OverriderOpReplace, Value: "1.25",
				}}},
			}},
		},
	}
	createAll(t, op, testPolicy(name+"-propagation", name, "member1", "member2"), testDeployment(name, "nginx:1.24", 1))

	for member, want := range map[string]string{"member1": "nginx:1.24", "member2": "nginx:1.25"} {
		harness.Eventually(t, member+" runs image "+want, func(ctx context.Context) (bool, error) {
			img, err := memberImage(ctx, member, name)
			if err != nil {
				return false, err
			}
			if img != want {
				return false, fmt.Errorf("image %q, want %q", img, want)
			}
			return true, nil
		}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}
	// The template itself is never overridden.
	if img, err := func() (string, error) {
		d := testDeployment(name, "", 0)
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(d), d)
		return d.Spec.Template.Spec.Containers[0].Image, err
	}(); err != nil || img != "nginx:1.24" {
		t.Errorf("template image %q (%v), want nginx:1.24", img, err)
	}
}
