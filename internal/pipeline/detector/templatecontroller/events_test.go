package templatecontroller

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
	"github.com/propel-mc/propel/pkg/apis"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// hooks is an interpreter with the given hooks for every kind; err, when
// set, is the answer of both operations.
type hooks struct {
	enabled map[configv1alpha1.InterpreterOperation]bool
	err     error
}

func (h hooks) HookEnabled(_ schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool {
	return h.enabled[op]
}

func (h hooks) GetReplicas(context.Context, *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	return 3, nil, h.err
}

func (h hooks) GetComponents(context.Context, *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	return []workv1alpha2.Component{{Name: "main", Replicas: 3}}, h.err
}

// TestInterpretationEvents: Karmada records GetReplicas* or
// GetComponents* on the template when it interprets it to build the
// binding (its e2e suite reads GetReplicasSucceed on a Job); Propel
// records the success with the binding write and the failure before
// ApplyPolicyFailed.
func TestInterpretationEvents(t *testing.T) {
	replica := map[configv1alpha1.InterpreterOperation]bool{configv1alpha1.InterpreterOperationInterpretReplica: true}
	both := map[configv1alpha1.InterpreterOperation]bool{configv1alpha1.InterpreterOperationInterpretReplica: true,
		configv1alpha1.InterpreterOperationInterpretComponent: true}
	boom := errors.New("webhook did not answer")
	for _, tc := range []struct {
		name       string
		interp     hooks
		components bool // the MultiplePodTemplatesScheduling gate
		want       []string
	}{
		{"replicas", hooks{enabled: replica}, false, []string{"Normal GetReplicasSucceed", "Normal ApplyPolicySucceed"}},
		{"components", hooks{enabled: both}, true, []string{"Normal GetComponentsSucceed", "Normal ApplyPolicySucceed"}},
		{"components gate off", hooks{enabled: both}, false, []string{"Normal GetReplicasSucceed", "Normal ApplyPolicySucceed"}},
		{"no hook", hooks{}, false, []string{"Normal ApplyPolicySucceed"}},
		{"replicas failed", hooks{enabled: replica, err: boom}, false, []string{"Warning GetReplicasFailed", "Warning ApplyPolicyFailed"}},
		{"components failed", hooks{enabled: both, err: boom}, true, []string{"Warning GetComponentsFailed", "Warning ApplyPolicyFailed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(10)
			r := &Reconciler{client: fake.NewClientBuilder().WithScheme(apis.Scheme).Build(), interpreter: tc.interp, recorder: rec,
				opts: Options{MultiplePodTemplatesScheduling: tc.components}}
			p := &policyindex.Policy{Namespace: "default", Name: "p", ID: "p-id", Spec: pp()}
			obj := templatetest.DecodedDeployment(t, "web")
			// applyPolicy's step after the claim.
			written, err := r.ensureBinding(context.Background(), obj, p)
			if err != nil {
				_ = r.applyFailed(obj, p, err)
			} else if written {
				r.applySucceeded(obj, p)
			}
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				f := strings.Fields(e)
				got = append(got, f[0]+" "+f[1])
				if tc.interp.err != nil && strings.Contains(f[1], "Get") && !strings.Contains(e, boom.Error()) {
					t.Errorf("event %q does not carry the interpreter's error", e)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
}

// TestApplyPolicyMessages: a ClusterPropagationPolicy is named "cluster
// policy(name)" in the ApplyPolicy messages, as in Karmada's, not by an
// empty namespace.
func TestApplyPolicyMessages(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	r := &Reconciler{interpreter: hooks{}, recorder: rec}
	obj := templatetest.DecodedDeployment(t, "web")
	r.applySucceeded(obj, &policyindex.Policy{Namespace: "default", Name: "p", Spec: pp()})
	r.applySucceeded(obj, &policyindex.Policy{Name: "cp", Cluster: true, Spec: pp()})
	_ = r.applyFailed(obj, &policyindex.Policy{Name: "cp", Cluster: true, Spec: pp()}, errors.New("denied"))
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	want := []string{"Normal ApplyPolicySucceed Apply policy(default/p) succeed", "Normal ApplyPolicySucceed Apply cluster policy(cp) succeed",
		"Warning ApplyPolicyFailed Apply cluster policy(cp) failed: denied"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}
