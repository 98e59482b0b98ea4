// Package usage is the arithmetic of FederatedResourceQuota enforcement:
// what a ResourceBinding's placement charges, the change a new placement
// makes, and whether that change fits a quota. It is pure: the
// enforcement controller and the scheduler's quota check call it.
package usage

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// OfBinding is what a binding's placement charges: with components,
// (sum over components of replicas x request) x number of target
// clusters; otherwise request x the replicas summed over target clusters.
// Zero quantities are left out; a binding without requests or clusters
// charges nothing. Negative requests and replica counts (see
// CheckBinding) charge nothing: a negative charge would lower, or erase,
// what a quota records as used by other bindings.
func OfBinding(spec *workv1alpha2.ResourceBindingSpec) corev1.ResourceList {
	out := corev1.ResourceList{}
	if len(spec.Components) > 0 {
		for _, c := range spec.Components {
			if c.ReplicaRequirements == nil {
				continue
			}
			addTimes(out, c.ReplicaRequirements.ResourceRequest, int64(c.Replicas)*int64(len(spec.Clusters)))
		}
		return nonZero(out)
	}
	if spec.ReplicaRequirements == nil {
		return nil
	}
	var replicas int64
	for _, tc := range spec.Clusters {
		replicas += max(int64(tc.Replicas), 0)
	}
	addTimes(out, spec.ReplicaRequirements.ResourceRequest, replicas)
	return nonZero(out)
}

func addTimes(into, per corev1.ResourceList, n int64) {
	if n <= 0 {
		return
	}
	for name, q := range per {
		if q.Sign() < 0 {
			continue
		}
		v := q.DeepCopy()
		v.Mul(n)
		total := into[name]
		total.Add(v)
		into[name] = total
	}
}

// ErrNegativeCharge is wrapped by the error of a binding whose placement
// would charge a negative quantity.
var ErrNegativeCharge = errors.New("a quota charge must not be negative")

// CheckBinding reports a negative resource request or replica count in
// spec, which OfBinding leaves out. The interpreter refuses such
// requirements; a binding written with them by other means is refused a
// new placement (Admit) rather than charged.
func CheckBinding(spec *workv1alpha2.ResourceBindingSpec) error {
	for i, c := range spec.Components {
		if c.Replicas < 0 {
			return fmt.Errorf("spec.components[%d].replicas is %d: %w", i, c.Replicas, ErrNegativeCharge)
		}
		if c.ReplicaRequirements != nil {
			if err := checkRequests(fmt.Sprintf("spec.components[%d].replicaRequirements.resourceRequest", i), c.ReplicaRequirements.ResourceRequest); err != nil {
				return err
			}
		}
	}
	for i, tc := range spec.Clusters {
		if tc.Replicas < 0 {
			return fmt.Errorf("spec.clusters[%d].replicas is %d: %w", i, tc.Replicas, ErrNegativeCharge)
		}
	}
	if spec.ReplicaRequirements != nil {
		return checkRequests("spec.replicaRequirements.resourceRequest", spec.ReplicaRequirements.ResourceRequest)
	}
	return nil
}

func checkRequests(path string, list corev1.ResourceList) error {
	names := make([]string, 0, len(list))
	for n := range list {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		if q := list[corev1.ResourceName(n)]; q.Sign() < 0 {
			return fmt.Errorf("%s.%s is %s: %w", path, n, q.String(), ErrNegativeCharge)
		}
	}
	return nil
}

func nonZero(l corev1.ResourceList) corev1.ResourceList {
	for name, q := range l {
		if q.IsZero() {
			delete(l, name)
		}
	}
	if len(l) == 0 {
		return nil
	}
	return l
}

// Delta is newUsage - oldUsage, without the resources that did not change.
func Delta(oldUsage, newUsage corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range newUsage {
		out[name] = q.DeepCopy()
	}
	for name, q := range oldUsage {
		v := out[name]
		v.Sub(q)
		out[name] = v
	}
	return nonZero(out)
}

// Restrict keeps the entries of l whose names are in keys.
func Restrict(l, keys corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range l {
		if _, ok := keys[name]; ok {
			out[name] = q
		}
	}
	return nonZero(out)
}

// Exceeded is a quota refusing a change of placement.
type Exceeded struct {
	Namespace, Name string
	Resource        corev1.ResourceName
	Requested       resource.Quantity
	Limit           resource.Quantity
}

// Reason is the Scheduled condition reason of a refused placement
// (Karmada's).
const Reason = "QuotaExceeded"

func (e *Exceeded) Error() string {
	return fmt.Sprintf("FederatedResourceQuota(%s/%s) exceeded for resource %s: requested sum %s, limit %s.",
		e.Namespace, e.Name, e.Resource, e.Requested.String(), e.Limit.String())
}

// Charge adds delta to used as Karmada's resource accumulator does (only
// cpu, memory, pods, ephemeral-storage and scalar resources are kept;
// totals at or below zero are dropped) and reports the first resource of
// overall the result exceeds, in name order.
func Charge(namespace, name string, overall, used, delta corev1.ResourceList) (corev1.ResourceList, *Exceeded) {
	out := corev1.ResourceList{}
	for _, l := range []corev1.ResourceList{used, delta} {
		for n, q := range l {
			if !accumulated(n) {
				continue
			}
			total := out[n]
			total.Add(q)
			out[n] = total
		}
	}
	for n, q := range out {
		if q.Sign() <= 0 {
			delete(out, n)
		}
	}
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		requested := out[corev1.ResourceName(n)]
		limit, ok := overall[corev1.ResourceName(n)]
		if ok && requested.Cmp(limit) > 0 {
			return nil, &Exceeded{Namespace: namespace, Name: name, Resource: corev1.ResourceName(n), Requested: requested, Limit: limit}
		}
	}
	return out, nil
}

// accumulated reports whether Karmada's accumulator keeps resource n.
func accumulated(n corev1.ResourceName) bool {
	switch n {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage:
		return true
	}
	s := string(n)
	return strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) || strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix) ||
		(strings.Contains(s, "/") && !strings.HasPrefix(s, corev1.ResourceDefaultNamespacePrefix))
}
