package main

import (
	"fmt"
	"math"
	"sort"
)

// distribution is a sample's count and chosen quantiles, in the sample's
// unit.
type distribution struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// distributionOf sorts samples (in place) and takes its quantiles by the
// nearest-rank method: the q quantile is the smallest value with at least
// q of the samples at or below it. An empty sample gives zeros.
func distributionOf(samples []float64) distribution {
	if len(samples) == 0 {
		return distribution{}
	}
	sort.Float64s(samples)
	return distribution{
		Count: len(samples),
		P50:   quantile(samples, 0.50), P90: quantile(samples, 0.90), P99: quantile(samples, 0.99),
		Max: samples[len(samples)-1],
	}
}

// quantile is the nearest-rank q quantile of sorted, which is not empty.
func quantile(sorted []float64, q float64) float64 {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// scaled is d with every value multiplied by f (seconds to milliseconds).
func (d distribution) scaled(f float64) distribution {
	d.P50, d.P90, d.P99, d.Max = d.P50*f, d.P90*f, d.P99*f, d.Max*f
	return d
}

func (d distribution) String() string {
	return fmt.Sprintf("p50 %.3g, p90 %.3g, p99 %.3g, max %.3g (%d objects)", d.P50, d.P90, d.P99, d.Max, d.Count)
}
