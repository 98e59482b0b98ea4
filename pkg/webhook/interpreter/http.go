package interpreter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/log"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// MaxRequestBytes bounds the request body a webhook reads.
const MaxRequestBytes = 1 << 20

var _ http.Handler = (*Webhook)(nil)

var errEmptyBody = errors.New("request body is empty")

// ServeHTTP decodes a ResourceInterpreterContext, calls Handle and writes
// {"response": …} with HTTP status 200: failures travel as
// successful=false. Requests rejected before Handle (no body, wrong
// Content-Type, too large, not JSON) are answered without the request uid.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, resp, ok := readRequest(r)
	if ok {
		resp = wh.Handle(r.Context(), req)
	}
	writeResponse(w, resp, req)
}

func readRequest(r *http.Request) (Request, Response, bool) {
	var req Request
	if r.Body == nil {
		return req, Errored(http.StatusBadRequest, errEmptyBody), false
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		return req, Errored(http.StatusBadRequest, fmt.Errorf("contentType=%s, expected application/json", ct)), false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	if err != nil {
		return req, Errored(http.StatusBadRequest, fmt.Errorf("read request body: %w", err)), false
	}
	if len(body) == 0 {
		return req, Errored(http.StatusBadRequest, errEmptyBody), false
	}
	if len(body) > MaxRequestBytes {
		return req, Errored(http.StatusRequestEntityTooLarge, fmt.Errorf("request body exceeds %d bytes", MaxRequestBytes)), false
	}
	envelope := configv1alpha1.ResourceInterpreterContext{Request: &req.ResourceInterpreterRequest}
	if err := json.Unmarshal(body, &envelope); err != nil {
		return req, Errored(http.StatusBadRequest, fmt.Errorf("decode request: %w", err)), false
	}
	return req, Response{}, true
}

func writeResponse(w http.ResponseWriter, resp Response, req Request) {
	body, err := json.Marshal(configv1alpha1.ResourceInterpreterContext{Response: &resp.ResourceInterpreterResponse})
	if err != nil {
		log.Log.WithName("interpreter-webhook").Error(err, "encode response", "uid", req.UID)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body); err != nil {
		log.Log.WithName("interpreter-webhook").Error(err, "write response", "uid", req.UID)
	}
}
