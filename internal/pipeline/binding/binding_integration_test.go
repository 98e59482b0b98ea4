package binding

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

const nginxWork = "nginx-687f7fb96f"

// TestBindingController runs the controllers against a real API server:
// Works for a scheduled binding, no writes for an unchanged one, an
// OverridePolicy for one cluster, a bad override failing one cluster
// only, orphan removal, and cleanup on deletion.
func TestBindingController(t *testing.T) {
	e := startEnv(t)
	ctx := context.Background()
	deploy := sampleDeployment(t)
	e.create(t, deploy)
	rb := nginxBinding(deploy.UID)
	e.create(t, rb)

	member1, member2 := e.waitForWorks(t, map[string]int64{"member1": 2, "member2": 1})
	checkWorkMetadata(t, member1, "member1", deploy.UID)
	checkWorkMetadata(t, member2, "member2", deploy.UID)

	t.Run("an unchanged binding costs no write", func(t *testing.T) {
		e.writes.Quiet(t, 0)
		before := e.writes.Len()
		for range 3 {
			if _, err := e.rb.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(rb)}); err != nil {
				t.Fatal(err)
			}
		}
		if got := e.writes.Len() - before; got != 0 {
			t.Errorf("3 reconciles of an unchanged binding wrote %d times", got)
		}
	})

	t.Run("an OverridePolicy changes the image for member2 only", func(t *testing.T) {
		e.overrideImageForMember2(t, member1)
	})

	t.Run("a bad override fails member2 only", func(t *testing.T) {
		e.badOverrideForMember2(t)
	})

	t.Run("member2 leaves the targets", func(t *testing.T) {
		e.setClusters(t, rb, workv1alpha2.TargetCluster{Name: "member1", Replicas: 3})
		harness.Eventually(t, "member2's Work deleted", func(ctx context.Context) (bool, error) { return e.gone(ctx, "member2", nginxWork) })
		e.waitForWorks(t, map[string]int64{"member1": 3})
	})

	t.Run("deleting the binding deletes its Works", func(t *testing.T) {
		if err := e.Client.Delete(ctx, rb); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, "member1's Work deleted", func(ctx context.Context) (bool, error) { return e.gone(ctx, "member1", nginxWork) })
		harness.Eventually(t, "binding released", func(ctx context.Context) (bool, error) {
			err := e.Client.Get(ctx, client.ObjectKeyFromObject(rb), &workv1alpha2.ResourceBinding{})
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
	})
}

// nginxBinding is the binding the detector and the scheduler would leave
// for the nginx sample, scheduled member1:2, member2:1.
func nginxBinding(uid types.UID) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: names.BindingName("Deployment", "nginx"),
			Labels:     map[string]string{names.ResourceBindingPermanentIDLabel: "rb-id-nginx"},
			Finalizers: []string{names.BindingControllerFinalizer},
		},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx", UID: uid},
			Replicas: 3,
			Placement: &policyv1alpha1.Placement{ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
				ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
			}},
			Clusters:           []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 1}},
			ConflictResolution: policyv1alpha1.ConflictAbort,
		},
	}
}

// waitForWorks waits until the nginx Work of each cluster has the replicas
// given, and returns the member1 and member2 Works (nil when not listed).
func (e *testEnv) waitForWorks(t *testing.T, replicas map[string]int64) (member1, member2 *workv1alpha1.Work) {
	t.Helper()
	got := map[string]*workv1alpha1.Work{}
	harness.Eventually(t, "Works with the scheduled replicas", func(ctx context.Context) (bool, error) {
		for cluster, want := range replicas {
			w, err := e.work(ctx, cluster, nginxWork)
			if err != nil {
				return false, client.IgnoreNotFound(err)
			}
			if r, _ := manifestReplicasAndImage(t, w); r != want {
				return false, nil
			}
			got[cluster] = w
		}
		return true, nil
	})
	return got["member1"], got["member2"]
}

func checkWorkMetadata(t *testing.T, w *workv1alpha1.Work, cluster string, uid types.UID) {
	t.Helper()
	workID := w.Labels[names.WorkPermanentIDLabel]
	if w.Labels[names.ResourceBindingPermanentIDLabel] != "rb-id-nginx" || workID == "" {
		t.Errorf("%s: Work labels %v", cluster, w.Labels)
	}
	if w.Annotations[names.ResourceBindingNamespaceAnnotation] != "default" || w.Annotations[names.ResourceBindingNameAnnotation] != "nginx-deployment" ||
		w.Annotations[names.ConflictResolutionAnnotation] != "abort" || len(w.Annotations) != 3 {
		t.Errorf("%s: Work annotations %v", cluster, w.Annotations)
	}
	if len(w.Finalizers) != 1 || w.Finalizers[0] != names.ExecutionControllerFinalizer || len(w.OwnerReferences) != 0 {
		t.Errorf("%s: finalizers %v owners %v", cluster, w.Finalizers, w.OwnerReferences)
	}
	if w.Spec.SuspendDispatching == nil || *w.Spec.SuspendDispatching || w.Spec.PreserveResourcesOnDeletion == nil || *w.Spec.PreserveResourcesOnDeletion {
		t.Errorf("%s: spec %+v", cluster, w.Spec)
	}
	m := manifestOf(t, w)
	l, a := m.GetLabels(), m.GetAnnotations()
	if l[names.WorkPermanentIDLabel] != workID || l[names.ManagedLabel] != "true" || l["app"] != "nginx" ||
		a[names.ResourceTemplateUIDAnnotation] != string(uid) || a[names.ResourceTemplateGenerationAnnotation] != "1" ||
		a[names.WorkNameAnnotation] != nginxWork || a[names.WorkNamespaceAnnotation] != names.ExecutionSpace(cluster) {
		t.Errorf("%s: manifest labels %v annotations %v", cluster, l, a)
	}
	if a[names.ManagedLabelsAnnotation] != "app,karmada.io/managed,resourcebinding.karmada.io/permanent-id,work.karmada.io/permanent-id" {
		t.Errorf("%s: managed labels %q", cluster, a[names.ManagedLabelsAnnotation])
	}
}

func (e *testEnv) overrideImageForMember2(t *testing.T, member1Before *workv1alpha1.Work) {
	op := &policyv1alpha1.OverridePolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx-image"},
		Spec: policyv1alpha1.OverrideSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"}},
			OverrideRules: []policyv1alpha1.RuleWithCluster{{
				TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}},
				Overriders: policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{
					{Component: policyv1alpha1.Registry, Operator: policyv1alpha1.OverriderOpAdd, Value: "mirror.example.io"},
					{Component: policyv1alpha1.Tag, Operator: policyv1alpha1.OverriderOpReplace, Value: "1.27"},
				}},
			}},
		},
	}
	e.create(t, op)
	var member2 *workv1alpha1.Work
	harness.Eventually(t, "member2 image overridden", func(ctx context.Context) (bool, error) {
		w, err := e.work(ctx, "member2", nginxWork)
		if err != nil {
			return false, err
		}
		member2 = w
		_, image := manifestReplicasAndImage(t, w)
		return image == "mirror.example.io/nginx:1.27", nil
	})
	const applied = `[{"policyName":"nginx-image","overriders":{"imageOverrider":[{"component":"Registry","operator":"add","value":"mirror.example.io"},{"component":"Tag","operator":"replace","value":"1.27"}]}}]`
	if got := member2.Annotations[names.AppliedOverridesAnnotation]; got != applied {
		t.Errorf("applied-overrides %s", got)
	}
	e.writes.Quiet(t, 0)
	member1, err := e.work(context.Background(), "member1", nginxWork)
	if err != nil {
		t.Fatal(err)
	}
	if _, image := manifestReplicasAndImage(t, member1); image != "nginx" || member1.ResourceVersion != member1Before.ResourceVersion {
		t.Errorf("member1 Work changed: image %s resourceVersion %s -> %s", image, member1Before.ResourceVersion, member1.ResourceVersion)
	}
}

func (e *testEnv) badOverrideForMember2(t *testing.T) {
	ctx := context.Background()
	bad := &policyv1alpha1.OverridePolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx-bad"},
		Spec: policyv1alpha1.OverrideSpec{OverrideRules: []policyv1alpha1.RuleWithCluster{{
			TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}},
			Overriders: policyv1alpha1.Overriders{Plaintext: []policyv1alpha1.PlaintextOverrider{
				{Path: "/spec/nonexistent", Operator: policyv1alpha1.OverriderOpReplace, Value: apiextensionsv1.JSON{Raw: []byte("1")}},
			}},
		}}},
	}
	e.create(t, bad)
	var msg string
	harness.Eventually(t, "ApplyOverridePolicyFailed on the binding", func(ctx context.Context) (bool, error) {
		var events corev1.EventList
		if err := e.Client.List(ctx, &events, client.InNamespace("default")); err != nil {
			return false, err
		}
		for _, ev := range events.Items {
			if ev.InvolvedObject.Kind == "ResourceBinding" && ev.Reason == EventReasonApplyOverridePolicyFailed && ev.Type == corev1.EventTypeWarning {
				msg = ev.Message
				return true, nil
			}
		}
		return false, nil
	})
	for _, want := range []string{"member2", "OverridePolicy default/nginx-bad", "overrideRules[0]", "plaintext[0]", `"/spec/nonexistent"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("event %q does not name %s", msg, want)
		}
	}
	// member1 keeps being synced: scale it while member2 fails.
	rb := &workv1alpha2.ResourceBinding{}
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "nginx-deployment"}, rb); err != nil {
		t.Fatal(err)
	}
	e.setClusters(t, rb, workv1alpha2.TargetCluster{Name: "member1", Replicas: 4}, workv1alpha2.TargetCluster{Name: "member2", Replicas: 5})
	e.waitForWorks(t, map[string]int64{"member1": 4})
	if w, err := e.work(ctx, "member2", nginxWork); err != nil {
		t.Fatal(err)
	} else if r, _ := manifestReplicasAndImage(t, w); r != 1 {
		t.Errorf("member2 Work was rewritten despite its failing override: replicas %d", r)
	}
	if err := e.Client.Delete(ctx, bad); err != nil {
		t.Fatal(err)
	}
	e.waitForWorks(t, map[string]int64{"member2": 5})
}

func (e *testEnv) setClusters(t *testing.T, rb *workv1alpha2.ResourceBinding, clusters ...workv1alpha2.TargetCluster) {
	t.Helper()
	patch := client.MergeFrom(rb.DeepCopy())
	rb.Spec.Clusters = clusters
	if err := e.Client.Patch(context.Background(), rb, patch); err != nil {
		t.Fatal(err)
	}
}
