package estimatorwire

import "errors"

// Limits bound what one list or map of a request may hold; a request over
// a limit is refused before it is decoded. gRPC bounds the message size
// (MaxMessageSize) first, and the request totals (totals.go) bound the
// lists together.
const (
	// MaxMessageSize is the largest message the estimator server accepts.
	MaxMessageSize = 4 << 20
	// MaxComponents bounds the components of a request or assumed workload.
	MaxComponents = 128
	// MaxAssumedWorkloads bounds a request's assumed workloads.
	MaxAssumedWorkloads = 4096
	// MaxTolerations bounds a node claim's tolerations.
	MaxTolerations = 256
	// MaxMapEntries bounds the entries of one node selector or resource
	// request map (entries on the wire: a repeated key counts again).
	MaxMapEntries = 256
)

var errLimit = errors.New("too many entries")
