package interpreter

import (
	"encoding/json"
	"net/http"

	"gomodules.xyz/jsonpatch/v2"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Errored is an unsuccessful response with status code and err's message.
func Errored(code int32, err error) Response {
	return Response{ResourceInterpreterResponse: configv1alpha1.ResourceInterpreterResponse{
		Successful: false,
		Status:     &configv1alpha1.RequestStatus{Code: code, Message: err.Error()},
	}}
}

// Succeeded is a successful response with message msg.
func Succeeded(msg string) Response {
	return ValidationResponse(true, msg)
}

// ValidationResponse is successful with code 200 when ok, else unsuccessful
// with code 403.
func ValidationResponse(ok bool, msg string) Response {
	code := int32(http.StatusForbidden)
	if ok {
		code = http.StatusOK
	}
	return Response{ResourceInterpreterResponse: configv1alpha1.ResourceInterpreterResponse{
		Successful: ok,
		Status:     &configv1alpha1.RequestStatus{Code: code, Message: msg},
	}}
}

// PatchResponseFromRaw answers with the RFC 6902 JSON Patch turning the
// JSON document original into current; Succeeded("") when they are equal.
func PatchResponseFromRaw(original, current []byte) Response {
	ops, err := jsonpatch.CreatePatch(original, current)
	if err != nil {
		return Errored(http.StatusInternalServerError, err)
	}
	if len(ops) == 0 {
		return Succeeded("")
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return Errored(http.StatusInternalServerError, err)
	}
	pt := configv1alpha1.PatchTypeJSONPatch
	return Response{ResourceInterpreterResponse: configv1alpha1.ResourceInterpreterResponse{
		Successful: true,
		Patch:      patch,
		PatchType:  &pt,
	}}
}
