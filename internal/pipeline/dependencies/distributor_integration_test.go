package dependencies

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// dynamicTemplates reads templates straight from the API server.
type dynamicTemplates struct {
	dyn dynamic.Interface
	mgr ctrl.Manager
}

func (d dynamicTemplates) Get(ctx context.Context, gvk schema.GroupVersionKind, ns, name string) (*unstructured.Unstructured, error) {
	m, err := d.mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	return d.dyn.Resource(m.Resource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
}

// TestConfigMapFollowsDeployment: a Deployment's ConfigMap gets an attached
// binding that carries the Deployment's clusters, and is released when the
// workload stops propagating dependencies.
func TestConfigMapFollowsDeployment(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	mgr, err := ctrl.NewManager(env.ControllerManagerConfig(), ctrl.Options{Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(env.ControllerManagerConfig())
	d := &Distributor{
		Client: mgr.GetClient(), Dynamic: dyn, Mapper: mgr.GetRESTMapper(),
		Interpreter: resourceinterpreter.New(native.New()), Templates: dynamicTemplates{dyn, mgr},
		//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
		Recorder: mgr.GetEventRecorderFor("dependencies-distributor"),
	}
	if err := d.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = mgr.Start(ctx) }()

	c := env.Client
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx-config"}, Data: map[string]string{"k": "v"}}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}},
					Volumes: []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{
						ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "nginx-config"}}}}},
				},
			},
		},
	}
	for _, o := range []client.Object{cm, deploy} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx-deployment",
			Labels: map[string]string{names.ResourceBindingPermanentIDLabel: "rb-id-1"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:      workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx"},
			PropagateDeps: true,
			Clusters:      []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 1}},
		},
	}
	if err := c.Create(ctx, rb); err != nil {
		t.Fatal(err)
	}
	attached := &workv1alpha2.ResourceBinding{}
	harness.Eventually(t, "attached binding for the ConfigMap", func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "nginx-config-configmap"}, attached)
		return err == nil, nil
	})
	label := names.DependedByLabelKey("default", "nginx-deployment")
	if attached.Labels[label] != "rb-id-1" {
		t.Errorf("attached labels %v, want %s=rb-id-1", attached.Labels, label)
	}
	if len(attached.Spec.RequiredBy) != 1 || attached.Spec.RequiredBy[0].Name != "nginx-deployment" ||
		len(attached.Spec.RequiredBy[0].Clusters) != 1 || attached.Spec.RequiredBy[0].Clusters[0].Name != "member1" {
		t.Errorf("requiredBy %+v", attached.Spec.RequiredBy)
	}
	if attached.Spec.Resource.Kind != "ConfigMap" || attached.Spec.Resource.UID != cm.UID || metav1.GetControllerOf(attached).UID != cm.UID {
		t.Errorf("attached resource %+v owner %+v", attached.Spec.Resource, attached.OwnerReferences)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(rb), rb); err != nil {
		t.Fatal(err)
	}
	if rb.Annotations[names.BindingDependenciesAnnotation] == "" || len(rb.Finalizers) != 1 {
		t.Errorf("independent binding annotations %v finalizers %v", rb.Annotations, rb.Finalizers)
	}

	// Turning propagateDeps off releases the ConfigMap.
	rb.Spec.PropagateDeps = false
	if err := c.Update(ctx, rb); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "attached binding released", func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "nginx-config-configmap"}, attached); err != nil {
			return false, err
		}
		return attached.Labels[label] == "" && len(attached.Spec.RequiredBy) == 0, nil
	})
	harness.Eventually(t, "distributor finalizer removed", func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(rb), rb)
		return err == nil && len(rb.Finalizers) == 0, err
	})
}
