package e2e

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/propel-mc/propel/test/harness"
)

// TestMemberPodLogsAndExec: a member's kwok node answers the kubelet's
// logs and exec as Karmada's karmadactl specs need (`karmadactl logs`
// expects output, `karmadactl exec ... -- echo hello` a zero exit), here
// straight through the member's API server, the path the cluster proxy
// forwards to.
func TestMemberPodLogsAndExec(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	m := env.Member("member1")
	cs, err := kubernetes.NewForConfig(m.Config)
	if err != nil {
		t.Fatal(err)
	}
	ns := harness.UniqueName("podio")
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "nginx", Image: "nginx:1.27"},
			{Name: "sidecar", Image: "busybox:1.36"},
		}},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the pod runs on member1's kwok node", func(ctx context.Context) (bool, error) {
		got, err := cs.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && got.Status.Phase == corev1.PodRunning, err
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))

	for _, container := range []string{"nginx", "sidecar"} {
		out, err := cs.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{Container: container}).DoRaw(ctx)
		if err != nil {
			t.Fatalf("logs of %s: %v", container, err)
		}
		if !strings.Contains(string(out), "kwok simulates this container") {
			t.Fatalf("logs of %s: %q", container, out)
		}
	}

	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod.Name).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "nginx", Command: []string{"echo", "hello"}, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	exec, err := remotecommand.NewSPDYExecutor(m.Config, "POST", req.URL())
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatalf("exec echo hello: %v (stderr %q)", err, stderr.String())
	}
	if stdout.String() != "hello\n" {
		t.Fatalf("exec echo hello printed %q (stderr %q)", stdout.String(), stderr.String())
	}
}
