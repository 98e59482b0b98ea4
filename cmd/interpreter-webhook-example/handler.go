package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

// workloadInterpreter answers every interpreter operation Karmada's sample
// webhook configuration registers for Workloads.
type workloadInterpreter struct {
	decoder *interpreter.Decoder
}

var (
	_ interpreter.Handler         = (*workloadInterpreter)(nil)
	_ interpreter.DecoderInjector = (*workloadInterpreter)(nil)
)

// InjectDecoder receives the SDK's decoder.
func (e *workloadInterpreter) InjectDecoder(d *interpreter.Decoder) { e.decoder = d }

// Handle decodes the Workload and dispatches on the operation.
func (e *workloadInterpreter) Handle(_ context.Context, req interpreter.Request) interpreter.Response {
	log.Log.V(4).Info("interpreting workload", "operation", req.Operation, "workload", klog.KRef(req.Namespace, req.Name), "uid", req.UID)
	w := &Workload{}
	if err := e.decoder.Decode(req, w); err != nil {
		return interpreter.Errored(http.StatusBadRequest, err)
	}
	switch req.Operation {
	case configv1alpha1.InterpreterOperationInterpretReplica:
		return interpretReplica(w)
	case configv1alpha1.InterpreterOperationReviseReplica:
		return reviseReplica(req)
	case configv1alpha1.InterpreterOperationRetain:
		return e.retain(req)
	case configv1alpha1.InterpreterOperationAggregateStatus:
		return aggregateStatus(req)
	case configv1alpha1.InterpreterOperationInterpretHealth:
		return interpretHealth(w)
	case configv1alpha1.InterpreterOperationInterpretStatus:
		return interpretStatus(w)
	case configv1alpha1.InterpreterOperationInterpretDependency:
		return interpretDependency(w)
	default:
		return interpreter.Errored(http.StatusBadRequest, fmt.Errorf("operation %q is not supported for Workloads", req.Operation))
	}
}

// patchObject answers with the JSON Patch that edit makes to the object.
// It edits the generic JSON rather than the typed Workload so that fields
// this example does not model are never removed by the patch.
func patchObject(raw []byte, edit func(obj map[string]any) error) interpreter.Response {
	obj := map[string]any{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return interpreter.Errored(http.StatusBadRequest, fmt.Errorf("decode object: %w", err))
	}
	if err := edit(obj); err != nil {
		return interpreter.Errored(http.StatusBadRequest, err)
	}
	current, err := json.Marshal(obj)
	if err != nil {
		return interpreter.Errored(http.StatusInternalServerError, err)
	}
	return interpreter.PatchResponseFromRaw(raw, current)
}
