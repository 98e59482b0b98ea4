package webhook

import (
	stdjson "encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/json"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// decodeResponse decodes the envelope. Like Karmada's codec it is
// case-sensitive and defaults a missing apiVersion/kind, but rejects others.
func decodeResponse(raw []byte) (*configv1alpha1.ResourceInterpreterResponse, error) {
	var rc configv1alpha1.ResourceInterpreterContext
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, &rc); err != nil {
		if rerr := replicasDecodeError(raw); rerr != nil {
			return nil, rerr
		}
		return nil, fmt.Errorf("decode response: %w", err)
	}
	if v := rc.APIVersion; v != "" && v != configv1alpha1.GroupVersion.String() {
		return nil, fmt.Errorf("decode response: unexpected apiVersion %q, expected %q", v, configv1alpha1.GroupVersion.String())
	}
	if k := rc.Kind; k != "" && k != contextKind {
		return nil, fmt.Errorf("decode response: unexpected kind %q, expected %q", k, contextKind)
	}
	if rc.Response == nil {
		return nil, errNoResponse
	}
	return rc.Response, nil
}

// verifyResponse checks the answer in Karmada's order and with its
// messages: uid, success and status, then what the operation requires.
func verifyResponse(res *configv1alpha1.ResourceInterpreterResponse, uid types.UID, op configv1alpha1.InterpreterOperation) error {
	if res.UID != uid {
		return fmt.Errorf("expected response.uid %q, got %q", uid, res.UID)
	}
	if !res.Successful {
		if res.Status == nil {
			return errors.New("webhook require response.status when response.successful is false")
		}
		// The message is the webhook's own text, of any length: bounded here,
		// before it reaches errors, logs and Events.
		return fmt.Errorf("webhook call failed, get status code: %d, msg: %s", res.Status.Code, boundedtext.String(res.Status.Message))
	}
	switch op {
	case configv1alpha1.InterpreterOperationInterpretReplica:
		if res.Replicas == nil {
			return errors.New("webhook returned nil response.replicas")
		}
		if *res.Replicas < 0 {
			return fmt.Errorf("webhook returned invalid response.replicas %d: %w", *res.Replicas, layer.ErrInvalidReplicas)
		}
	case configv1alpha1.InterpreterOperationInterpretDependency:
		// The one validator every layer's answer goes through (spec §2.8).
		return layer.ValidateDependencies(res.Dependencies)
	case configv1alpha1.InterpreterOperationReviseReplica, configv1alpha1.InterpreterOperationRetain,
		configv1alpha1.InterpreterOperationAggregateStatus, configv1alpha1.InterpreterOperationPrune:
		return verifyPatch(res)
	case configv1alpha1.InterpreterOperationInterpretStatus:
		if res.RawStatus == nil {
			// Karmada's message, typo included.
			return errors.New("webhook returned nill response.rawStatus")
		}
	case configv1alpha1.InterpreterOperationInterpretHealth:
		if res.Healthy == nil {
			return errors.New("webhook returned nil response.healthy")
		}
	}
	return nil
}

// verifyPatch accepts no patch at all, or a non-empty JSONPatch.
func verifyPatch(res *configv1alpha1.ResourceInterpreterResponse) error {
	if len(res.Patch) == 0 && res.PatchType == nil {
		return nil
	}
	if res.PatchType == nil {
		return errors.New("webhook returned nil response.patchType")
	}
	if len(res.Patch) == 0 {
		return errors.New("webhook returned empty response.patch")
	}
	if *res.PatchType != configv1alpha1.PatchTypeJSONPatch {
		return fmt.Errorf("webhook returned invalid response.patchType of %q", *res.PatchType)
	}
	return nil
}

// replicasDecodeError explains a response that does not decode because
// response.replicas is not an int32 (a fraction, an exponent, a number out
// of range): the decoder's own message names only the Go type. It returns
// nil when replicas is not the problem.
func replicasDecodeError(raw []byte) error {
	var probe struct {
		Response *struct {
			Replicas *stdjson.Number `json:"replicas"`
		} `json:"response"`
	}
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, &probe); err != nil || probe.Response == nil || probe.Response.Replicas == nil {
		return nil
	}
	n := probe.Response.Replicas
	if _, err := layer.ReplicasFromNumber(n.String()); err != nil {
		return fmt.Errorf("webhook returned invalid response.replicas %w", boundedtext.Error(err))
	}
	return nil
}
