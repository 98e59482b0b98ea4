package dependencies

import (
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// failingInterpreter answers GetDependencies with its error.
type failingInterpreter struct{ err error }

func (failingInterpreter) HookEnabled(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) bool {
	return true
}
func (f failingInterpreter) GetDependencies(context.Context, *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	return nil, f.err
}

type oneTemplate struct{}

func (oneTemplate) Get(_ context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u, nil
}

// TestGetDependenciesFailedIsBounded: a script's error(<20 MiB>) reaches
// the GetDependenciesFailed event and the returned error truncated.
func TestGetDependenciesFailedIsBounded(t *testing.T) {
	huge := errors.New(strings.Repeat("x", 20<<20))
	rec := record.NewFakeRecorder(4)
	d := &Distributor{Interpreter: failingInterpreter{huge}, Templates: oneTemplate{}, Recorder: rec}
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-deployment"},
		Spec: workv1alpha2.ResourceBindingSpec{Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"}}}
	_, _, err := d.dependenciesOf(context.Background(), rb)
	if !errors.Is(err, huge) || len(err.Error()) > boundedtext.DefaultLimit {
		t.Fatalf("dependenciesOf: error of %d bytes, want the interpreter's error bounded", len(err.Error()))
	}
	close(rec.Events)
	n := 0
	for e := range rec.Events {
		n++
		const prefix = "Warning " + EventReasonGetDependenciesFailed + " Get dependencies of Deployment default/web failed: xxx"
		if !strings.HasPrefix(e, prefix) || !boundedtext.IsTruncated(e) || len(e) > len(prefix)+boundedtext.DefaultLimit {
			t.Errorf("event of %d bytes (%.100q...): want %q, at most %d bytes of the error and the marker", len(e), e, prefix, boundedtext.DefaultLimit)
		}
	}
	if n != 1 {
		t.Errorf("recorded %d events, want one", n)
	}
}
