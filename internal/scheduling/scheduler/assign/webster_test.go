package assign

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// UIDs with known FNV-32a parity: "a" is 0xe40c292c (even), "b" is
// 0xe70c2de5 (odd).
const (
	evenUID types.UID = "a"
	oddUID  types.UID = "b"
)

func TestTieBreakFor(t *testing.T) {
	for uid, larger := range map[types.UID]bool{"": false, evenUID: false, oddUID: true, "c": false} {
		if got := TieBreakFor(uid).LargerNameFirst; got != larger {
			t.Errorf("TieBreakFor(%q).LargerNameFirst = %v, want %v", uid, got, larger)
		}
	}
}

func seats(parties []Party) map[string]int32 {
	out := map[string]int32{}
	for _, p := range parties {
		out[p.Name] = p.Seats
	}
	return out
}

func TestWebster(t *testing.T) {
	abc := func(a, b, c int64) []Party {
		return []Party{{Name: "A", Weight: a}, {Name: "B", Weight: b}, {Name: "C", Weight: c}}
	}
	tests := []struct {
		name    string
		seats   int32
		parties []Party
		uid     types.UID
		want    map[string]int32
	}{
		{"1:1:1 of 5, even parity: ties to the smaller name", 5, abc(1, 1, 1), evenUID, map[string]int32{"A": 2, "B": 2, "C": 1}},
		{"1:1:1 of 5, odd parity: ties to the larger name", 5, abc(1, 1, 1), oddUID, map[string]int32{"A": 1, "B": 2, "C": 2}},
		{"1:1:1 of 5, empty UID behaves as even", 5, abc(1, 1, 1), "", map[string]int32{"A": 2, "B": 2, "C": 1}},
		{"1:2:4 of 7", 7, abc(1, 2, 4), evenUID, map[string]int32{"A": 1, "B": 2, "C": 4}},
		{"2:1 of 3", 3, []Party{{Name: "m1", Weight: 2}, {Name: "m2", Weight: 1}}, evenUID, map[string]int32{"m1": 2, "m2": 1}},
		{"2:1 of 3, odd parity", 3, []Party{{Name: "m1", Weight: 2}, {Name: "m2", Weight: 1}}, oddUID, map[string]int32{"m1": 2, "m2": 1}},
		{"2:1 of 6", 6, []Party{{Name: "m1", Weight: 2}, {Name: "m2", Weight: 1}}, evenUID, map[string]int32{"m1": 4, "m2": 2}},
		{"1:2 of 9", 9, []Party{{Name: "m1", Weight: 1}, {Name: "m2", Weight: 2}}, evenUID, map[string]int32{"m1": 3, "m2": 6}},
		{"1:3 of 9", 9, []Party{{Name: "m1", Weight: 1}, {Name: "m2", Weight: 3}}, evenUID, map[string]int32{"m1": 2, "m2": 7}},
		{"1:1 of 1, even", 1, []Party{{Name: "x", Weight: 1}, {Name: "y", Weight: 1}}, evenUID, map[string]int32{"x": 1, "y": 0}},
		{"1:1 of 1, odd", 1, []Party{{Name: "x", Weight: 1}, {Name: "y", Weight: 1}}, oddUID, map[string]int32{"x": 0, "y": 1}},
		{"zero weight never wins against a positive weight", 4, abc(0, 1, 0), evenUID, map[string]int32{"A": 0, "B": 4, "C": 0}},
		{"zero weight sum allocates nothing", 4, abc(0, 0, 0), evenUID, map[string]int32{"A": 0, "B": 0, "C": 0}},
		{"zero seats", 0, abc(1, 2, 3), evenUID, map[string]int32{"A": 0, "B": 0, "C": 0}},
		{"remainder follows priority, not input order", 10, abc(3, 3, 1), evenUID, map[string]int32{"A": 4, "B": 4, "C": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Webster(tt.seats, tt.parties, TieBreakFor(tt.uid))
			for i := 1; i < len(got); i++ {
				if got[i-1].Name > got[i].Name {
					t.Fatalf("result not sorted by name: %+v", got)
				}
			}
			if g := seats(got); !equalSeats(g, tt.want) {
				t.Errorf("Webster = %v, want %v", g, tt.want)
			}
		})
	}
}

func equalSeats(a, b map[string]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestWebsterMatchesLinearScan checks the heap against the definition
// (linear scan for the best priority each seat) on many weight sets.
func TestWebsterMatchesLinearScan(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f"}
	for _, uid := range []types.UID{evenUID, oddUID} {
		for seed := int64(1); seed < 300; seed++ {
			parties := make([]Party, len(names))
			for i, n := range names {
				parties[i] = Party{Name: n, Weight: (seed*int64(i+3) + int64(i*i)) % 7}
			}
			total := int32(seed % 41)
			got := seats(Webster(total, parties, TieBreakFor(uid)))
			want := seats(linearWebster(total, parties, TieBreakFor(uid)))
			if !equalSeats(got, want) {
				t.Fatalf("seed %d uid %s: heap %v, linear %v", seed, uid, got, want)
			}
		}
	}
}

func linearWebster(total int32, parties []Party, tb TieBreak) []Party {
	out := append([]Party(nil), parties...)
	var sum int64
	for _, p := range out {
		sum += p.Weight
	}
	if sum == 0 {
		return out
	}
	h := &seatHeap{parties: out, tb: tb}
	for range total {
		best := 0
		for i := 1; i < len(out); i++ {
			if h.before(i, best) {
				best = i
			}
		}
		out[best].Seats++
	}
	return out
}
