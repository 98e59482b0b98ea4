package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestDeletingTemplateRemovesEverything: deleting a propagated template
// removes its binding, its Works and the member objects.
func TestDeletingTemplateRemovesEverything(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	const name = "gc-web"
	deploy := testDeployment(name, "nginx", 1)
	createAll(t, testPolicy(name+"-propagation", name, "member1", "member2"), deploy)
	members := []string{"member1", "member2"}
	for _, m := range members {
		harness.Eventually(t, name+" runs in "+m, func(ctx context.Context) (bool, error) {
			if ok, err := workExists(ctx, m, "Deployment", name, "default"); !ok {
				return false, err
			}
			_, err := memberImage(ctx, m, name)
			return err == nil, err
		}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}

	if err := env.Client.Delete(ctx, deploy, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the binding goes away", func(ctx context.Context) (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("Deployment", name)}, &workv1alpha2.ResourceBinding{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	for _, m := range members {
		harness.Eventually(t, "Work and Deployment go away in "+m, func(ctx context.Context) (bool, error) {
			if ok, err := workExists(ctx, m, "Deployment", name, "default"); ok || err != nil {
				return false, fmt.Errorf("Work still exists (%v)", err)
			}
			return goneIn(ctx, m, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}})
		}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}
}
