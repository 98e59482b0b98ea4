package main

import "testing"

func TestDistributionNearestRank(t *testing.T) {
	var s []float64
	for i := 100; i >= 1; i-- { // unsorted on purpose
		s = append(s, float64(i))
	}
	d := distributionOf(s)
	if d.Count != 100 || d.P50 != 50 || d.P90 != 90 || d.P99 != 99 || d.Max != 100 {
		t.Fatalf("1..100: %+v", d)
	}
	if d := distributionOf([]float64{3}); d.P50 != 3 || d.P99 != 3 || d.Max != 3 {
		t.Fatalf("one sample: %+v", d)
	}
	if d := distributionOf([]float64{1, 2}); d.P50 != 1 || d.P90 != 2 {
		t.Fatalf("two samples: %+v", d)
	}
	if d := distributionOf(nil); d != (distribution{}) {
		t.Fatalf("empty: %+v", d)
	}
	if d := distributionOf([]float64{0.5, 1}).scaled(1000); d.P50 != 500 || d.Max != 1000 {
		t.Fatalf("scaled: %+v", d)
	}
}
