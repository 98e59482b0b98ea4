package e2e

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// testDeployment is a small Deployment labelled app=<name>.
func testDeployment(name, image string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": name}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "main", Image: image,
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi"),
					}},
				}}},
			},
		},
	}
}

// testPolicy propagates the Deployment name (Duplicated) to clusters.
func testPolicy(name, deployment string, clusters ...string) *policyv1alpha1.PropagationPolicy {
	return &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: deployment}},
			Placement:         policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: clusters}},
		},
	}
}

func createAll(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := env.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// memberGet reads obj's key from member into obj.
func memberGet(ctx context.Context, member string, obj client.Object) error {
	c, err := env.MemberClient(member)
	if err != nil {
		return err
	}
	return c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
}

// goneIn reports whether obj's key is absent from member.
func goneIn(ctx context.Context, member string, obj client.Object) (bool, error) {
	err := memberGet(ctx, member, obj)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

// workOf returns the key of the Work for a template in cluster.
func workOf(cluster, kind, name, namespace string) client.ObjectKey {
	return client.ObjectKey{Namespace: names.ExecutionSpace(cluster), Name: names.WorkName(kind, name, namespace)}
}

// workExists reports whether the Work of the template exists in cluster's execution space.
func workExists(ctx context.Context, cluster, kind, name, namespace string) (bool, error) {
	err := env.Client.Get(ctx, workOf(cluster, kind, name, namespace), &workv1alpha1.Work{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func memberImage(ctx context.Context, member, name string) (string, error) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	if err := memberGet(ctx, member, d); err != nil {
		return "", err
	}
	return d.Spec.Template.Spec.Containers[0].Image, nil
}
