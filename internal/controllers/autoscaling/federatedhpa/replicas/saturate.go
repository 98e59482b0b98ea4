package replicas

import (
	"math"

	"k8s.io/apimachinery/pkg/api/resource"
)

// The calculation works in int64 milli-units and int32 replicas. A member
// can report any usage, so every step that could leave those ranges
// saturates instead: a wrapped sum or product turns a huge usage into a
// negative one, and a float beyond int32 converts to an arbitrary value
// (math.MinInt32 on amd64), either of which scales down to the minimum
// what should scale up.

// MilliValue is q in milli-units, saturated at the int64 bounds
// (Quantity.MilliValue wraps around beyond them).
func MilliValue(q resource.Quantity) int64 {
	limit := resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)
	if q.Cmp(*limit) >= 0 {
		return math.MaxInt64
	}
	limit = resource.NewMilliQuantity(math.MinInt64, resource.DecimalSI)
	if q.Cmp(*limit) <= 0 {
		return math.MinInt64
	}
	return q.MilliValue()
}

// AddSaturating is a+b, saturated at the int64 bounds.
func AddSaturating(a, b int64) int64 {
	sum := a + b
	switch {
	case a > 0 && b > 0 && sum < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && sum >= 0:
		return math.MinInt64
	}
	return sum
}

// mulSaturating is a×b for non-negative a and b, saturated at MaxInt64.
func mulSaturating(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// percentOf is floor(100 × part / whole) for non-negative part and a
// positive whole, without the overflow of computing 100 × part first,
// saturated at MaxInt32.
func percentOf(part, whole int64) int32 {
	p := AddSaturating(mulSaturating(part/whole, 100), mulSaturating(part%whole, 100)/whole)
	return int32(min(p, math.MaxInt32))
}

// ceilReplicas is ceil(f) as a replica count: NaN and negatives are 0,
// values beyond MaxInt32 are MaxInt32.
func ceilReplicas(f float64) int32 {
	c := math.Ceil(f)
	switch {
	case math.IsNaN(c) || c <= 0:
		return 0
	case c >= math.MaxInt32:
		return math.MaxInt32
	}
	return int32(c)
}
