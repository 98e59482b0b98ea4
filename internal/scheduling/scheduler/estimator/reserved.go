package estimator

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Reservations are replicas placed on clusters by decisions the
// estimators cannot see yet (Cluster status.resourceSummary lags the
// scheduler's writes). The scheduler's assume cache implements it.
type Reservations interface {
	// Reserved returns what is reserved on cluster: the number of pods
	// and the sum of their resource requests.
	Reserved(cluster string) (pods int64, requests corev1.ResourceList)
}

// deduct lowers an estimate of replicas needing req by the reservations:
// by the reserved pods, and for every resource req asks for, by the
// replicas the reserved amount would hold, rounded up. Since
// floor((free-r)/q) >= floor(free/q) - ceil(r/q), the result never exceeds
// what an estimator seeing the reservations would answer.
func deduct(estimate int64, pods int64, reserved corev1.ResourceList, req *workv1alpha2.ReplicaRequirements) int64 {
	cut := pods
	if req != nil {
		for name, q := range req.ResourceRequest {
			r, ok := reserved[name]
			if !ok {
				continue
			}
			var need, have int64
			if name == corev1.ResourceCPU {
				need, have = q.MilliValue(), r.MilliValue()
			} else {
				need, have = q.Value(), r.Value()
			}
			if need <= 0 || have <= 0 {
				continue
			}
			if n := (have + need - 1) / need; n > cut {
				cut = n
			}
		}
	}
	if estimate == math.MaxInt32 || cut <= 0 {
		return estimate
	}
	return max(estimate-cut, 0)
}
