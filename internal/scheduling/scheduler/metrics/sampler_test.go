package metrics

import (
	"testing"
	"time"
)

func TestPluginSamplerByCountAndByTime(t *testing.T) {
	now := time.Unix(100, 0)
	s := NewPluginSampler(3, time.Second, func() time.Time { return now })
	var got []bool
	next := func(advance time.Duration) {
		now = now.Add(advance)
		got = append(got, s.Next())
	}
	next(0)                      // first: timed
	next(time.Millisecond)       // 2nd
	next(time.Millisecond)       // 3rd
	next(time.Millisecond)       // 4th: one in 3, timed
	next(time.Millisecond)       // 5th
	next(2 * time.Second)        // 6th: a second since the last timed one
	next(time.Millisecond)       // 7th: one in 3, timed
	next(999 * time.Millisecond) // 8th: 999 ms since the last timed one
	want := []bool{true, false, false, true, false, true, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("attempts timed %v, want %v", got, want)
		}
	}
}
