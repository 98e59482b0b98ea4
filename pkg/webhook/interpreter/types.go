package interpreter

import (
	"context"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Request is the request a webhook receives.
type Request struct {
	configv1alpha1.ResourceInterpreterRequest
}

// Response is the answer of a webhook.
type Response struct {
	configv1alpha1.ResourceInterpreterResponse
}

// Complete fills the fields the caller checks and a Handler need not set:
// the request UID and, when missing or zero, status code 200.
func (r *Response) Complete(req Request) {
	r.UID = req.UID
	if r.Status == nil {
		r.Status = &configv1alpha1.RequestStatus{}
	}
	if r.Status.Code == 0 {
		r.Status.Code = 200
	}
}

// Handler interprets one request.
type Handler interface {
	Handle(ctx context.Context, req Request) Response
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req Request) Response

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req Request) Response {
	return f(ctx, req)
}

// DecoderInjector is implemented by handlers that want the webhook's Decoder.
type DecoderInjector interface {
	InjectDecoder(d *Decoder)
}
