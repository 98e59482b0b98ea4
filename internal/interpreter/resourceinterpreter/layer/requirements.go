package layer

import (
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// ErrNegativeRequest is wrapped by every error about a negative quantity
// in replica requirements: a binding charged with it would lower, not
// raise, a FederatedResourceQuota's recorded usage.
var ErrNegativeRequest = errors.New("resource requests must not be negative")

// CheckRequirements rejects per-replica requirements with a negative
// resource request, naming the first such resource in name order.
func CheckRequirements(reqs *workv1alpha2.ReplicaRequirements) error {
	if reqs == nil {
		return nil
	}
	return checkRequests("resourceRequest", reqs.ResourceRequest)
}

// CheckComponents rejects components with a replica count that is not
// valid or a negative resource request, naming the component.
func CheckComponents(comps []workv1alpha2.Component) error {
	for i := range comps {
		c := &comps[i]
		if _, err := ReplicasFromInt64(int64(c.Replicas)); err != nil {
			return fmt.Errorf("components[%d] (%s): replicas %w", i, c.Name, err)
		}
		if c.ReplicaRequirements == nil {
			continue
		}
		if err := checkRequests("replicaRequirements.resourceRequest", c.ReplicaRequirements.ResourceRequest); err != nil {
			return fmt.Errorf("components[%d] (%s): %w", i, c.Name, err)
		}
	}
	return nil
}

func checkRequests(path string, list corev1.ResourceList) error {
	var negative []string
	for name, q := range list {
		if q.Sign() < 0 {
			negative = append(negative, string(name))
		}
	}
	if len(negative) == 0 {
		return nil
	}
	sort.Strings(negative)
	q := list[corev1.ResourceName(negative[0])]
	return fmt.Errorf("%s.%s is %s: %w", path, negative[0], q.String(), ErrNegativeRequest)
}
