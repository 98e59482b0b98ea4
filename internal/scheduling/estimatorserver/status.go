package estimatorserver

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
)

// interrupted is the gRPC status of the request's end once its context
// has ended (the client stopped waiting or went away), else nil. The
// loops over nodes, pods and components check it at every step, so that
// work no one waits for any more stops at the deadline.
func interrupted(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	return nil
}

// invalid is the InvalidArgument status naming a request field. Its
// message is bounded: the field's value, which a decoding or validation
// error may quote, can be as long as the request.
func invalid(format string, args ...any) error {
	return status.Error(codes.InvalidArgument, boundedtext.String(fmt.Sprintf(format, args...)))
}
