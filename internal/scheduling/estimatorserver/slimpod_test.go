package estimatorserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

func TestSlimPodKeepsWhatEstimatesRead(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	p := pod("web", "n1", "500m", corev1.PodRunning)
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	p.Annotations = map[string]string{"big": "x"}
	p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "b"}}
	p.Spec.InitContainers = []corev1.Container{{Name: "sidecar", RestartPolicy: &always, Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
	}}}
	p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
	p.Spec.Volumes = []corev1.Volume{{Name: "v"}}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c"}}

	obj, err := slimPod(p)
	if err != nil {
		t.Fatal(err)
	}
	slim := obj.(*corev1.Pod)
	want := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
	if got := resourcehelper.PodRequests(slim, resourcehelper.PodResourcesOptions{}); !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("requests of the slim pod %v, want %v", got, want)
	}
	if slim.Spec.NodeName != "n1" || slim.Labels["app"] != "x" || slim.Status.Phase != corev1.PodRunning || len(slim.Status.Conditions) != 1 {
		t.Errorf("slim pod lost what estimates read: %+v", slim)
	}
	if slim.ManagedFields != nil || slim.Annotations != nil || slim.Spec.Volumes != nil || slim.Spec.Containers[0].Env != nil || slim.Status.ContainerStatuses != nil {
		t.Errorf("slim pod kept what estimates do not read: %+v", slim)
	}
}
