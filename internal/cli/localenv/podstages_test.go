package localenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// TestMemberPodOfUnpullableImageIsNotReady: on a member's kwok nodes a pod
// whose image is under UnpullableImagePrefix waits as a kubelet's would
// (ErrImagePull, then ImagePullBackOff), Pending and not Ready, while a
// pod of any other image becomes Running and Ready, a Job's pod completes
// and a deleted pod goes away (the stages that replace kwok's defaults).
func TestMemberPodOfUnpullableImageIsNotReady(t *testing.T) {
	if missing := MissingBinaries(true); len(missing) > 0 {
		t.Fatalf("missing binaries %v in %s (set PROPEL_TESTBIN_DIR or run hack/testbin.sh)", missing, BinDir())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	env, err := Start(ctx, Options{Dir: t.TempDir(), Members: []MemberOptions{{Name: "member1", Workloads: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Stop()
	kube, err := kubernetes.NewForConfig(env.Members[0].Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := ensureNamespace(ctx, kube, "pods"); err != nil {
		t.Fatal(err)
	}
	runs := podOfImage("runs", "nginx:1.19.0")
	// Its second container's image can be pulled: that one runs.
	unpullable := podOfImage("unpullable", UnpullableImagePrefix+"nginx:1.19.0")
	unpullable.Spec.Containers = append(unpullable.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox"})
	for _, pod := range []*corev1.Pod{runs, unpullable} {
		if err := createWhenAdmitted(ctx, kube, pod); err != nil {
			t.Fatal(err)
		}
	}

	got, err := waitPod(ctx, kube, runs.Name, func(p *corev1.Pod) bool { return podReady(p) })
	if err != nil {
		t.Fatalf("pod of image %s: %v; last status %+v", runs.Spec.Containers[0].Image, err, got.Status)
	}

	waiting := func(reason string) func(p *corev1.Pod) bool {
		return func(p *corev1.Pod) bool {
			cs := p.Status.ContainerStatuses
			return len(cs) == 2 && cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == reason
		}
	}
	got, err = waitPod(ctx, kube, unpullable.Name, func(p *corev1.Pod) bool {
		return waiting(ReasonErrImagePull)(p) || waiting(ReasonImagePullBackOff)(p) || podReady(p)
	})
	if err != nil || podReady(got) {
		t.Fatalf("pod of image %s: got %v, phase %s, container statuses %+v; want a container waiting with %s",
			UnpullableImagePrefix+"nginx:1.19.0", err, got.Status.Phase, got.Status.ContainerStatuses, ReasonErrImagePull)
	}
	got, err = waitPod(ctx, kube, unpullable.Name, waiting(ReasonImagePullBackOff))
	if err != nil {
		t.Fatalf("pod of image %s: %v; container statuses %+v", UnpullableImagePrefix+"nginx:1.19.0", err, got.Status.ContainerStatuses)
	}
	if podReady(got) || got.Status.Phase != corev1.PodPending || got.Status.PodIP == "" {
		t.Errorf("pod of image %s: phase %s, ready %t, pod IP %q; want Pending, not Ready, with a pod IP", UnpullableImagePrefix+"nginx:1.19.0", got.Status.Phase, podReady(got), got.Status.PodIP)
	}
	if sidecar := got.Status.ContainerStatuses[1]; sidecar.Name != "sidecar" || !sidecar.Ready || sidecar.State.Running == nil {
		t.Errorf("container of a pullable image beside it: %+v; want it running and ready", sidecar)
	}

	if err := kube.CoreV1().Pods("pods").Delete(ctx, unpullable.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().Pods("pods").Get(ctx, unpullable.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		t.Errorf("deleted pod %s is still there: %v", unpullable.Name, err)
	}

	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "pods", Name: "once"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "once", Image: "busybox"}},
		}}},
	}
	if _, err := kube.BatchV1().Jobs("pods").Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		j, err := kube.BatchV1().Jobs("pods").Get(ctx, job.Name, metav1.GetOptions{})
		return err == nil && j.Status.Succeeded == 1, nil
	}); err != nil {
		t.Errorf("job %s did not succeed: %v", job.Name, err)
	}
}

func podOfImage(name, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "pods", Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
	}
}

// createWhenAdmitted creates pod once the member's admission takes it: the
// namespace's default ServiceAccount appears a moment after the namespace.
func createWhenAdmitted(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod) error {
	var last error
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, last = kube.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("create pod %s: %w (last: %v)", pod.Name, err, last)
	}
	return nil
}

// waitPod polls the pod until done holds; it returns the last pod read.
func waitPod(ctx context.Context, kube kubernetes.Interface, name string, done func(*corev1.Pod) bool) (*corev1.Pod, error) {
	last := &corev1.Pod{}
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := kube.CoreV1().Pods("pods").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = p
		return done(p), nil
	})
	return last, err
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
