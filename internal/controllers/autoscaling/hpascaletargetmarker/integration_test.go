package hpascaletargetmarker_test

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/hpascaletargetmarker"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/test/harness"
)

// TestMarker: a propagated HPA labels its target retain-replicas; moving
// it to another target moves the label; deleting it removes the label. An
// HPA no policy claimed labels nothing.
func TestMarker(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := env.Client
	for _, name := range []string{"web", "api", "lone"} {
		if err := c.Create(ctx, harness.Deployment("default", name, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := harness.RunManager(ctx, env.ControllerManagerConfig(), func(mgr manager.Manager) error {
		return hpascaletargetmarker.New(hpascaletargetmarker.Deps{Client: mgr.GetClient()}).SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}
	hpa := func(name, target string, claimed bool) *autoscalingv2.HorizontalPodAutoscaler {
		h := &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target},
				MaxReplicas:    5,
			},
		}
		if claimed {
			h.Labels = map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-1"}
		}
		return h
	}
	labelled := func(name string, want bool) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			d := &appsv1.Deployment{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, d); err != nil {
				return false, err
			}
			return (d.Labels[names.RetainReplicasLabel] == "true") == want, nil
		}
	}
	h := hpa("web-hpa", "web", true)
	for _, o := range []client.Object{h, hpa("lone-hpa", "lone", false)} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, "web is labelled retain-replicas", labelled("web", true))
	harness.Eventually(t, "move the HPA to api", func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(h), h); err != nil {
			return false, err
		}
		h.Spec.ScaleTargetRef.Name = "api"
		return c.Update(ctx, h) == nil, nil
	})
	harness.Eventually(t, "api is labelled", labelled("api", true))
	harness.Eventually(t, "web is unlabelled", labelled("web", false))
	if err := c.Delete(ctx, h); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "api is unlabelled when the HPA goes", labelled("api", false))
	if ok, err := labelled("lone", false)(ctx); err != nil || !ok {
		t.Errorf("the target of an HPA no policy claimed was labelled (%v)", err)
	}
}
