package accurate

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/shared/names"
)

// TestResolveUsesExternalNameTargetPort: an ExternalName Service that lists
// the estimator port sends the scheduler to its target port, as Karmada
// resolves it, so that estimators of several members can share one host.
func TestResolveUsesExternalNameTargetPort(t *testing.T) {
	svc := func(cluster string, ports ...corev1.ServicePort) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: names.SystemNamespace, Name: "karmada-scheduler-estimator-" + cluster},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "127.0.0.1", Ports: ports},
		}
	}
	reader := fake.NewClientBuilder().WithObjects(
		svc("mapped", corev1.ServicePort{Name: "grpc", Port: 10352, TargetPort: intstr.FromInt32(20001)}),
		svc("portless"),
		svc("other-port", corev1.ServicePort{Port: 9999, TargetPort: intstr.FromInt32(20002)}),
		svc("named-target", corev1.ServicePort{Port: 10352, TargetPort: intstr.FromString("grpc")}),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: names.SystemNamespace, Name: "karmada-scheduler-estimator-in-cluster"}},
	).Build()
	e := New(*NewOptions(), reader, logr.Discard())
	for cluster, want := range map[string]string{
		"mapped":     "127.0.0.1:20001",
		"portless":   "127.0.0.1:10352",
		"in-cluster": "karmada-scheduler-estimator-in-cluster.karmada-system.svc.cluster.local:10352",
	} {
		if got, err := e.resolve(context.Background(), cluster); err != nil || got != want {
			t.Errorf("%s: resolve = %q, %v; want %q", cluster, got, err, want)
		}
	}
	for _, cluster := range []string{"other-port", "named-target", "missing"} {
		if got, err := e.resolve(context.Background(), cluster); err == nil {
			t.Errorf("%s: resolve = %q, want an error", cluster, got)
		}
	}
}
