package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestPropagateDepsCarriesConfigMap: with propagateDeps the ConfigMap a
// Deployment mounts follows it to member1 through an attached binding; once
// the template stops mounting it, the attached binding is released (no
// requiredBy) and its Work and member copy go away. On the way, the
// events Karmada's e2e suite reads are on the objects it reads them on.
func TestPropagateDepsCarriesConfigMap(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	const name, cmName = "deps-web", "deps-web-config"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: cmName}, Data: map[string]string{"k": "v"}}
	deploy := testDeployment(name, "nginx", 1)
	deploy.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cmName}},
	}}}
	deploy.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: "/cfg"}}
	pol := testPolicy(name+"-propagation", name, "member1")
	pol.Spec.PropagateDeps = true
	createAll(t, cm, pol, deploy)

	attachedKey := client.ObjectKey{Namespace: "default", Name: names.BindingName("ConfigMap", cmName)}
	harness.Eventually(t, "the ConfigMap follows the Deployment to member1", func(ctx context.Context) (bool, error) {
		got := &corev1.ConfigMap{ObjectMeta: cm.ObjectMeta}
		if err := memberGet(ctx, "member1", got); err != nil {
			return false, err
		}
		return got.Data["k"] == "v", nil
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	// The attached binding is never scheduled; its Work's status still
	// reaches it (Karmada's migration spec waits for Applied on it).
	harness.Eventually(t, "the attached binding reports its Work applied", func(ctx context.Context) (bool, error) {
		rb := &workv1alpha2.ResourceBinding{}
		if err := env.Client.Get(ctx, attachedKey, rb); err != nil {
			return false, err
		}
		items := rb.Status.AggregatedStatus
		return len(items) == 1 && items[0].ClusterName == "member1" && items[0].Applied, nil
	}, harness.Timeout(time.Minute), harness.LogsIn(env.LogDir))
	// The events Karmada's e2e suite reads along the way, on the objects
	// it reads them on.
	work := workOf("member1", "Deployment", name, "default")
	binding := names.BindingName("Deployment", name)
	expectEvents(t,
		wantEvent{kind: "Deployment", namespace: "default", name: name, eventType: corev1.EventTypeNormal, reason: "ApplyPolicySucceed"},
		wantEvent{kind: "Deployment", namespace: "default", name: name, eventType: corev1.EventTypeNormal, reason: "GetReplicasSucceed"},
		wantEvent{kind: "Deployment", namespace: "default", name: name, eventType: corev1.EventTypeNormal, reason: "ScheduleBindingSucceed"},
		wantEvent{kind: "Deployment", namespace: "default", name: name, eventType: corev1.EventTypeNormal, reason: "SyncWorkSucceed"},
		wantEvent{kind: "Deployment", namespace: "default", name: name, eventType: corev1.EventTypeNormal, reason: "GetDependenciesSucceed"},
		wantEvent{kind: "ResourceBinding", namespace: "default", name: binding, eventType: corev1.EventTypeNormal, reason: "SyncScheduleResultToDependenciesSucceed"},
		wantEvent{kind: "Work", namespace: work.Namespace, name: work.Name, eventType: corev1.EventTypeNormal, reason: "WorkDispatching",
			message: "Work is being dispatched to member clusters."},
		wantEvent{kind: "Work", namespace: work.Namespace, name: work.Name, eventType: corev1.EventTypeNormal, reason: "SyncSucceed"},
		wantEvent{kind: "Work", namespace: work.Namespace, name: work.Name, eventType: corev1.EventTypeNormal, reason: "InterpretHealthSucceed"},
	)
	attached := &workv1alpha2.ResourceBinding{}
	if err := env.Client.Get(ctx, attachedKey, attached); err != nil {
		t.Fatalf("attached binding: %v", err)
	}
	if len(attached.Spec.RequiredBy) != 1 || attached.Spec.RequiredBy[0].Name != names.BindingName("Deployment", name) {
		t.Errorf("attached binding requiredBy = %+v, want the Deployment's binding", attached.Spec.RequiredBy)
	}
	if other := (&corev1.ConfigMap{ObjectMeta: cm.ObjectMeta}); true {
		if gone, err := goneIn(ctx, "member2", other); err != nil || !gone {
			t.Errorf("ConfigMap reached member2, which the policy does not select (gone=%v, %v)", gone, err)
		}
	}

	// Drop the volume: the ConfigMap is no longer a dependency.
	harness.Eventually(t, "remove the volume from the template", func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(deploy), d); err != nil {
			return false, err
		}
		d.Spec.Template.Spec.Volumes = nil
		d.Spec.Template.Spec.Containers[0].VolumeMounts = nil
		return env.Client.Update(ctx, d) == nil, nil
	}, harness.LogsIn(env.LogDir))
	harness.Eventually(t, "the attached binding is released", func(ctx context.Context) (bool, error) {
		rb := &workv1alpha2.ResourceBinding{}
		err := env.Client.Get(ctx, attachedKey, rb)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if len(rb.Spec.RequiredBy) != 0 {
			return false, fmt.Errorf("requiredBy still %+v", rb.Spec.RequiredBy)
		}
		for k := range rb.Labels {
			if k == names.DependedByLabelKey("default", names.BindingName("Deployment", name)) {
				return false, fmt.Errorf("depended-by label still set")
			}
		}
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	harness.Eventually(t, "the ConfigMap's Work and member1 copy go away", func(ctx context.Context) (bool, error) {
		if ok, err := workExists(ctx, "member1", "ConfigMap", cmName, "default"); ok || err != nil {
			return false, fmt.Errorf("Work still exists (%v)", err)
		}
		return goneIn(ctx, "member1", &corev1.ConfigMap{ObjectMeta: cm.ObjectMeta})
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	// The Deployment itself keeps running in member1.
	if _, err := memberImage(ctx, "member1", name); err != nil {
		t.Errorf("member1 Deployment: %v", err)
	}
}
