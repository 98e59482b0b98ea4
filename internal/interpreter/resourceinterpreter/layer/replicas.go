package layer

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
)

// ErrInvalidReplicas is wrapped by every error about a replica count that
// is not an integer between 0 and math.MaxInt32: Kubernetes' int32 replica
// fields cannot hold it, and converting it would silently produce a
// different number (NaN and 2^31 both become -2147483648).
var ErrInvalidReplicas = errors.New("replicas must be an integer between 0 and 2147483647")

// ReplicasFromInt64 returns n as an int32 replica count, or an error naming
// the value.
func ReplicasFromInt64(n int64) (int32, error) {
	if n < 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%d: %w", n, ErrInvalidReplicas)
	}
	return int32(n), nil
}

// ReplicasFromFloat64 returns f as an int32 replica count; NaN, ±Inf,
// fractions, negative numbers and numbers above math.MaxInt32 are errors
// naming the value. Layers whose answers are floating point (Lua numbers)
// convert with it.
func ReplicasFromFloat64(f float64) (int32, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %w", strconv.FormatFloat(f, 'g', -1, 64), ErrInvalidReplicas)
	}
	return int32(f), nil
}

// ReplicasFromNumber returns the JSON number text s as an int32 replica
// count, or an error naming the value (bounded in length).
func ReplicasFromNumber(s string) (int32, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 && n <= math.MaxInt32 {
		return int32(n), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if n, err := ReplicasFromFloat64(f); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s: %w", boundedtext.String(s), ErrInvalidReplicas)
}
