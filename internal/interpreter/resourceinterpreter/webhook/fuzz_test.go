package webhook

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// FuzzDecodeResponse: no answer crashes the decoder or the verifier, and a
// failure is an error of bounded length.
func FuzzDecodeResponse(f *testing.F) {
	for _, seed := range []string{
		`{"response":{"uid":"u","successful":true,"replicas":3}}`,
		`{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterContext","response":{"uid":"u","successful":false,"status":{"code":500,"message":"boom"}}}`,
		`{"response":{"uid":"u","successful":true,"replicas":1.5}}`,
		`{"response":{"uid":"u","successful":true,"replicas":-1}}`,
		`{"response":{"uid":"u","successful":true,"replicas":1e400}}`,
		`{"response":{"uid":"u","successful":true,"patchType":"JSONPatch","patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL2EiLCJ2YWx1ZSI6MX1d"}}`,
		`{"response":{"uid":"u","successful":true,"dependencies":[{"apiVersion":"v1","kind":"Secret","namespace":"kube-system","name":"x"}]}}`,
		`{}`, `null`, `[`, `{"response":{"UID":"u"}}`,
	} {
		f.Add([]byte(seed))
	}
	ops := []configv1alpha1.InterpreterOperation{
		configv1alpha1.InterpreterOperationInterpretReplica, configv1alpha1.InterpreterOperationReviseReplica,
		configv1alpha1.InterpreterOperationInterpretDependency, configv1alpha1.InterpreterOperationInterpretHealth,
		configv1alpha1.InterpreterOperationInterpretStatus, configv1alpha1.InterpreterOperationAggregateStatus,
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := decodeResponse(raw)
		if err != nil {
			return
		}
		for _, op := range ops {
			if err := verifyResponse(res, types.UID("u"), op); err != nil {
				_ = callError("cfg/hook", err).Error()
				continue
			}
			if op == configv1alpha1.InterpreterOperationInterpretReplica && *res.Replicas < 0 {
				t.Fatalf("negative replicas %d accepted", *res.Replicas)
			}
		}
	})
}

// FuzzApplyJSONPatch: no patch crashes the applier or escapes its limits.
func FuzzApplyJSONPatch(f *testing.F) {
	doc := `{"apiVersion":"v1","kind":"Workload","metadata":{"name":"a"},"spec":{"replicas":1,"list":[1,2,3]}}`
	for _, seed := range []string{
		`[{"op":"replace","path":"/spec/replicas","value":3}]`,
		`[{"op":"add","path":"/spec/list/0","value":0},{"op":"remove","path":"/spec/list/1"}]`,
		`[{"op":"copy","from":"/spec","path":"/spec/copy"},{"op":"copy","from":"/spec","path":"/spec/copy2"}]`,
		`[{"op":"move","from":"/spec/list","path":"/list"},{"op":"test","path":"/list/0","value":1}]`,
		`[{"op":"add","path":"/spec/list/-1","value":9}]`,
		`[]`, `{}`, `[{"op":"bogus"}]`,
		copyBombPatch(30),
	} {
		f.Add([]byte(doc), []byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc, patch []byte) {
		if len(doc) > 1<<16 || len(patch) > 1<<16 {
			return
		}
		out, err := applyJSONPatch(doc, patch)
		if err == nil && len(out) > MaxPatchedObjectBytes {
			t.Fatalf("patched object of %d bytes accepted", len(out))
		}
	})
}
