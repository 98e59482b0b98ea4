package accurate

import (
	"fmt"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
)

// convertAssumed converts the workloads assumed on a cluster (newest
// first) for a request carrying ownComponents components of its own.
// A request holds at most estimatorwire.MaxAssumedWorkloads workloads,
// MaxComponents components per workload and MaxRequestComponents in all,
// or the estimator refuses it whole; beyond those limits the oldest
// workloads are left out (left reports how many): the newest are the ones
// the member is least likely to count already, and the scheduler still
// deducts every one from the general estimator's answer.
func convertAssumed(ws []estimator.AssumedWorkload, ownComponents int) (out []*pb.AssumedWorkload, left int, err error) {
	budget := estimatorwire.MaxRequestComponents - ownComponents
	for i, w := range ws {
		if len(out) == estimatorwire.MaxAssumedWorkloads {
			return out, len(ws) - i, nil
		}
		if len(w.Components) > estimatorwire.MaxComponents || len(w.Components) > budget {
			left++
			continue
		}
		comps, err := components(w.Components)
		if err != nil {
			return nil, 0, fmt.Errorf("assumed workload in namespace %q: %w", w.Namespace, err)
		}
		budget -= len(comps)
		out = append(out, &pb.AssumedWorkload{Namespace: w.Namespace, Components: comps})
	}
	return out, left, nil
}
