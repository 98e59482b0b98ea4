package assign

import (
	"hash/fnv"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// Party is one cluster competing for seats (replicas).
type Party struct {
	Name   string
	Weight int64
	Seats  int32
}

// TieBreak decides exact priority ties between parties with equal seats:
// with LargerNameFirst the lexicographically larger name wins.
type TieBreak struct {
	LargerNameFirst bool
}

// TieBreakFor derives the tie-break from a template UID: FNV-32a of the UID
// bytes, lowest bit 1 means the larger name wins; 0 or an empty UID means
// the smaller name wins.
func TieBreakFor(uid types.UID) TieBreak {
	if uid == "" {
		return TieBreak{}
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(uid))
	return TieBreak{LargerNameFirst: h.Sum32()&1 == 1}
}

// Webster hands out seats one at a time to the party with the highest
// priority weight/(2·seats+1) in float64; exact ties go to the party with
// fewer seats, then by name per tb. A zero weight sum allocates nothing.
// The parties are returned sorted by name, including those with no seat.
func Webster(seats int32, parties []Party, tb TieBreak) []Party {
	out := slices.Clone(parties)
	var sum int64
	for _, p := range out {
		sum += p.Weight
	}
	if sum > 0 && seats > 0 && len(out) > 0 {
		h := &seatHeap{parties: out, tb: tb, order: make([]int, len(out))}
		h.init()
		for range seats {
			h.parties[h.order[0]].Seats++
			h.down(0)
		}
	}
	slices.SortFunc(out, func(a, b Party) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// seatHeap is a max-heap of party indexes ordered by Webster priority.
type seatHeap struct {
	parties []Party
	order   []int
	tb      TieBreak
}

func (h *seatHeap) init() {
	for i := range h.order {
		h.order[i] = i
	}
	for i := len(h.order)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// before reports whether party a gets the next seat before party b.
func (h *seatHeap) before(a, b int) bool {
	pa, pb := &h.parties[a], &h.parties[b]
	qa := float64(pa.Weight) / float64(2*int64(pa.Seats)+1)
	qb := float64(pb.Weight) / float64(2*int64(pb.Seats)+1)
	if qa != qb {
		return qa > qb
	}
	if pa.Seats != pb.Seats {
		return pa.Seats < pb.Seats
	}
	if h.tb.LargerNameFirst {
		return pa.Name > pb.Name
	}
	return pa.Name < pb.Name
}

func (h *seatHeap) down(i int) {
	n := len(h.order)
	for {
		best, l, r := i, 2*i+1, 2*i+2
		if l < n && h.before(h.order[l], h.order[best]) {
			best = l
		}
		if r < n && h.before(h.order[r], h.order[best]) {
			best = r
		}
		if best == i {
			return
		}
		h.order[i], h.order[best] = h.order[best], h.order[i]
		i = best
	}
}
