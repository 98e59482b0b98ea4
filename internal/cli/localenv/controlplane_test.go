package localenv

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestControlPlaneAdmitsPodsAsKarmada: the control plane admits a Pod in a
// namespace that has no ServiceAccount, as karmada-apiserver does (its
// ServiceAccount admission plugin is off: nothing there creates default
// ServiceAccounts), while a member, a plain cluster, still refuses it
// until its default ServiceAccount exists.
func TestControlPlaneAdmitsPodsAsKarmada(t *testing.T) {
	if missing := MissingBinaries(false); len(missing) > 0 {
		t.Fatalf("missing binaries %v in %s (set PROPEL_TESTBIN_DIR or run hack/testbin.sh)", missing, BinDir())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, err := Start(ctx, Options{Dir: t.TempDir(), Members: []MemberOptions{{Name: "member1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Stop()
	if err := createPod(ctx, env.ControlPlane.Config); err != nil {
		t.Errorf("control plane: %v", err)
	}
	if err := createPod(ctx, env.Members[0].Config); err == nil || !strings.Contains(err.Error(), "serviceaccount") {
		t.Errorf("member: got %v, want the ServiceAccount admission plugin's refusal", err)
	}
}

// createPod creates a namespace and a Pod in it, with no ServiceAccount.
func createPod(ctx context.Context, cfg *rest.Config) error {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := ensureNamespace(ctx, kube, "pods"); err != nil {
		return err
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "pods", Name: "nginx"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
	}
	_, err = kube.CoreV1().Pods("pods").Create(ctx, pod, metav1.CreateOptions{})
	return err
}
