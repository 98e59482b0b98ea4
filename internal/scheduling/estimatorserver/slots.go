package estimatorserver

import (
	"context"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
)

// MaxConcurrentRequests bounds the requests the server holds at once, over
// all connections: each holds its message (up to
// estimatorwire.MaxMessageSize), its decoded form and a pass over the
// nodes. Propel's scheduler asks each estimator at most once per worker (8)
// at a time; the limit leaves room for a second caller.
const MaxConcurrentRequests = 16

// requestSlots admits at most cap(slots) requests at once.
type requestSlots chan struct{}

func newRequestSlots(n int) requestSlots { return make(requestSlots, n) }

// slotKey is the context key of a request's release function.
type slotKey struct{}

// admit is the server's tap handle: gRPC calls it when a request's
// headers arrive, before it reads the message. A request beyond the limit
// is refused there with ResourceExhausted, without its message being read
// (a tap must not block: it runs on the connection's reader, so requests
// are refused rather than queued). An admitted request gives its slot back
// when its handler returns (releaseSlot, by the releasingSlots
// interceptor), or, if the handler never runs (the message is too large or
// over the codec's limits, the client goes away), when gRPC cancels the
// request's context at the end of its stream.
func (s requestSlots) admit(ctx context.Context, _ *tap.Info) (context.Context, error) {
	select {
	case s <- struct{}{}:
	default:
		return ctx, status.Errorf(codes.ResourceExhausted, "the estimator is serving %d requests, its limit; retry later", cap(s))
	}
	release := sync.OnceFunc(func() { <-s })
	context.AfterFunc(ctx, release)
	return context.WithValue(ctx, slotKey{}, release), nil
}

// releaseSlot gives back the slot of the request of ctx, if it holds one.
func releaseSlot(ctx context.Context) {
	if release, ok := ctx.Value(slotKey{}).(func()); ok {
		release()
	}
}
