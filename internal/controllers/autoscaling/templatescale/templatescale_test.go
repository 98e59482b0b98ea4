package templatescale

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/pkg/apis"
)

var deploymentGVK = appsv1.SchemeGroupVersion.WithKind("Deployment")

// scaleClient holds a Deployment web with replicas; it counts scale
// updates and fails the first conflicts of them with a conflict.
func scaleClient(t *testing.T, replicas int32, conflicts int, updates *int) client.Client {
	t.Helper()
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas)}}
	return fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(deploy).WithInterceptorFuncs(interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			*updates++
			if conflicts > 0 {
				conflicts--
				return apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, obj.GetName(), nil)
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}).Build()
}

func replicasOf(t *testing.T, c client.Client) int32 {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "web"}, d); err != nil {
		t.Fatal(err)
	}
	return ptr.Deref(d.Spec.Replicas, -1)
}

func TestGetAndUpdate(t *testing.T) {
	ctx := context.Background()
	updates := 0
	c := scaleClient(t, 3, 0, &updates)
	s, err := Get(ctx, c, deploymentGVK, client.ObjectKey{Namespace: "default", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Replicas(); n != 3 {
		t.Fatalf("replicas %d, want 3", n)
	}
	if err := s.Update(ctx, c, 5); err != nil {
		t.Fatal(err)
	}
	if got := replicasOf(t, c); got != 5 || updates != 1 {
		t.Errorf("template replicas %d after %d updates, want 5 after one", got, updates)
	}
	if _, err := Get(ctx, c, deploymentGVK, client.ObjectKey{Namespace: "default", Name: "absent"}); !apierrors.IsNotFound(err) {
		t.Errorf("scale of a missing template: %v, want not found", err)
	}
}

func TestSet(t *testing.T) {
	ctx := context.Background()
	key := client.ObjectKey{Namespace: "default", Name: "web"}
	updates := 0
	c := scaleClient(t, 3, 0, &updates)
	if written, err := Set(ctx, c, deploymentGVK, key, 3); err != nil || written || updates != 0 {
		t.Errorf("set to the current count: written %v, %d updates, err %v; want no write", written, updates, err)
	}
	// A conflicting update is retried on a fresh read.
	updates = 0
	c = scaleClient(t, 3, 1, &updates)
	if written, err := Set(ctx, c, deploymentGVK, key, 0); err != nil || !written {
		t.Fatalf("set to 0: written %v, err %v", written, err)
	}
	if got := replicasOf(t, c); got != 0 || updates != 2 {
		t.Errorf("template replicas %d after %d updates, want 0 after a conflict and a retry", got, updates)
	}
}
