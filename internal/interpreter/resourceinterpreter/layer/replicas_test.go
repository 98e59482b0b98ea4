package layer

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestReplicasFromFloat64(t *testing.T) {
	for _, f := range []float64{0, 1, 3, math.MaxInt32} {
		n, err := ReplicasFromFloat64(f)
		if err != nil || float64(n) != f {
			t.Errorf("ReplicasFromFloat64(%v) = %d, %v", f, n, err)
		}
	}
	for f, text := range map[float64]string{
		math.NaN(): "NaN", math.Inf(1): "+Inf", math.Inf(-1): "-Inf", 1.5: "1.5", -1: "-1",
		math.MaxInt32 + 1: "2.147483648e+09", 1e300: "1e+300",
	} {
		_, err := ReplicasFromFloat64(f)
		if !errors.Is(err, ErrInvalidReplicas) || !strings.HasPrefix(err.Error(), text+": ") {
			t.Errorf("ReplicasFromFloat64(%v) error = %v, want %q and ErrInvalidReplicas", f, err, text)
		}
	}
}

func TestReplicasFromInt64(t *testing.T) {
	if n, err := ReplicasFromInt64(math.MaxInt32); err != nil || n != math.MaxInt32 {
		t.Errorf("ReplicasFromInt64(MaxInt32) = %d, %v", n, err)
	}
	for _, v := range []int64{-1, math.MaxInt32 + 1, math.MinInt64, math.MaxInt64} {
		if _, err := ReplicasFromInt64(v); !errors.Is(err, ErrInvalidReplicas) {
			t.Errorf("ReplicasFromInt64(%d) error = %v", v, err)
		}
	}
}

func TestReplicasFromNumber(t *testing.T) {
	for s, want := range map[string]int32{"0": 0, "7": 7, "2147483647": math.MaxInt32, "3.0": 3, "1e3": 1000} {
		if n, err := ReplicasFromNumber(s); err != nil || n != want {
			t.Errorf("ReplicasFromNumber(%q) = %d, %v, want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"-1", "1.5", "2147483648", "1e400", "-0.5", "x", strings.Repeat("9", 1<<20)} {
		_, err := ReplicasFromNumber(s)
		if !errors.Is(err, ErrInvalidReplicas) || len(err.Error()) > 1200 {
			t.Errorf("ReplicasFromNumber(%.20q) error = %.200v", s, err)
		}
	}
}
