package templatecontroller

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// noReplicas is an interpreter without a replica hook for any kind.
type noReplicas struct{}

func (noReplicas) HookEnabled(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) bool {
	return false
}

func (noReplicas) GetReplicas(context.Context, *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	return 0, nil, errors.New("not called")
}

func (noReplicas) GetComponents(context.Context, *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	return nil, errors.New("not called")
}

// laggingCache is a reconciler whose cached client has no binding while
// the API server has one (create conflicts); live answers the fallback read.
func laggingCache(t *testing.T, live client.Reader) *Reconciler {
	t.Helper()
	cached := fake.NewClientBuilder().WithScheme(apis.Scheme).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.CreateOption) error {
			return apierrors.NewAlreadyExists(workv1alpha2.GroupVersion.WithResource("resourcebindings").GroupResource(), obj.GetName())
		},
	}).Build()
	return &Reconciler{client: cached, apiReader: live, interpreter: noReplicas{}, recorder: record.NewFakeRecorder(10)}
}

// TestBindingCreateConflictReadError: when the cache lags, the create
// conflicts and the live read fails, that failure is returned, not the
// cache's stale NotFound (an earlier version sent the read's error to a
// shadowed variable).
func TestBindingCreateConflictReadError(t *testing.T) {
	boom := errors.New("apiserver unavailable")
	live := fake.NewClientBuilder().WithScheme(apis.Scheme).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return boom
		},
	}).Build()
	r := laggingCache(t, live)
	p := &policyindex.Policy{Namespace: "default", Name: "p", ID: "p-id", Spec: pp()}
	written, err := r.ensureBinding(context.Background(), templatetest.DecodedDeployment(t, "web"), p)
	if written || !errors.Is(err, boom) {
		t.Fatalf("ensureBinding = %v, %v; want the live read's error", written, err)
	}
	if apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "after a create conflict") {
		t.Errorf("error %q does not say the read after the conflict failed", err)
	}
}

// TestBindingCreateConflictReadsLive: when the live read finds the binding
// the cache does not have yet, it is updated from the policy.
func TestBindingCreateConflictReadsLive(t *testing.T) {
	existing := &workv1alpha2.ResourceBinding{}
	existing.Namespace, existing.Name = "default", names.BindingName("Deployment", "web")
	existing.Labels = map[string]string{}
	live := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(existing).Build()
	r := laggingCache(t, live)
	var updated client.Object
	r.client = interceptor.NewClient(r.client.(client.WithWatch), interceptor.Funcs{
		Create: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.CreateOption) error {
			return apierrors.NewAlreadyExists(workv1alpha2.GroupVersion.WithResource("resourcebindings").GroupResource(), obj.GetName())
		},
		Update: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.UpdateOption) error {
			updated = obj
			return nil
		},
	})
	p := &policyindex.Policy{Namespace: "default", Name: "p", ID: "p-id", Spec: pp()}
	written, err := r.ensureBinding(context.Background(), templatetest.DecodedDeployment(t, "web"), p)
	if err != nil || !written {
		t.Fatalf("ensureBinding = %v, %v; want the live binding updated", written, err)
	}
	if updated == nil || updated.GetLabels()[names.PropagationPolicyPermanentIDLabel] != "p-id" {
		t.Fatalf("binding not updated with the claim: %v", updated)
	}
}

func pp() *policyv1alpha1.PropagationSpec {
	return &policyv1alpha1.PropagationSpec{ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}}}
}
