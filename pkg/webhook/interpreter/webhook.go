package interpreter

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Webhook serves one Handler over HTTP (see ServeHTTP).
type Webhook struct {
	handler Handler
}

// NewWebhook wraps handler, injecting decoder when handler implements
// DecoderInjector.
func NewWebhook(handler Handler, decoder *Decoder) *Webhook {
	if in, ok := handler.(DecoderInjector); ok {
		in.InjectDecoder(decoder)
	} else {
		log.Log.WithName("interpreter-webhook").V(4).Info("handler does not take a decoder", "handler", handler)
	}
	return &Webhook{handler: handler}
}

// Handle calls the handler and completes its response (uid, status code).
func (wh *Webhook) Handle(ctx context.Context, req Request) Response {
	resp := wh.handler.Handle(ctx, req)
	resp.Complete(req)
	return resp
}
