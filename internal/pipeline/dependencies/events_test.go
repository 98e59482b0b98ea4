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

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// oneDependency answers GetDependencies with one ConfigMap.
type oneDependency struct{}

func (oneDependency) HookEnabled(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) bool {
	return true
}
func (oneDependency) GetDependencies(context.Context, *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	return []configv1alpha1.DependentObjectReference{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "web-config"}}, nil
}

// TestGetDependenciesEventsOnTemplate: Karmada's e2e suite reads
// GetDependenciesSucceed on the Deployment, so both outcomes are recorded
// on the resource template, not on its binding.
func TestGetDependenciesEventsOnTemplate(t *testing.T) {
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-deployment"},
		Spec: workv1alpha2.ResourceBindingSpec{Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"}}}
	for _, tc := range []struct {
		name        string
		interpreter Interpreter
		want        string
	}{
		{"succeed", oneDependency{}, "Normal " + EventReasonGetDependenciesSucceed + " "},
		{"failed", failingInterpreter{errors.New("script error")}, "Warning " + EventReasonGetDependenciesFailed + " "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(4)
			rec.IncludeObject = true
			d := &Distributor{Interpreter: tc.interpreter, Templates: oneTemplate{}, Recorder: rec}
			_, _, _ = d.dependenciesOf(context.Background(), rb)
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) ||
				!strings.HasSuffix(got[0], "involvedObject{kind=Deployment,apiVersion=apps/v1}") {
				t.Errorf("events %q: want one %q on the Deployment", got, tc.want)
			}
		})
	}
}
