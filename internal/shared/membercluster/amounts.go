package membercluster

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Amounts is a resource list in a compact fixed form: integer units
// (millicores for cpu, plain units such as bytes or counts for everything
// else) and the quantity format each value came in. A ResourceList of
// Quantities costs a map and about 40 bytes per entry; the usual resources
// here cost a word each. Amounts are read-only once built.
type Amounts struct {
	fixed [numFixed]int64
	other []otherAmount
	// present has bit i set when fixed[i] is in the list.
	present uint8
	formats [numFixed]formatCode
}

// The resources nearly every node and pod lists, in fixed slots.
const (
	slotCPU = iota
	slotMemory
	slotEphemeralStorage
	slotPods
	numFixed
)

var fixedNames = [numFixed]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods}

type otherAmount struct {
	name   corev1.ResourceName
	value  int64
	format formatCode
}

// formatCode is a resource.Format in one byte.
type formatCode uint8

var formats = [...]resource.Format{resource.DecimalSI, resource.BinarySI, resource.DecimalExponent}

func codeOf(f resource.Format) formatCode {
	for i, known := range formats {
		if f == known {
			return formatCode(i)
		}
	}
	return 0
}

func (c formatCode) format() resource.Format { return formats[c] }

// AmountOf converts q to the unit Amounts use for name.
func AmountOf(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

func slotOf(name corev1.ResourceName) int {
	for i, n := range fixedNames {
		if n == name {
			return i
		}
	}
	return -1
}

// Get returns the amount of name and whether the list has it.
func (a *Amounts) Get(name corev1.ResourceName) (int64, bool) {
	if i := slotOf(name); i >= 0 {
		return a.fixed[i], a.present&(1<<i) != 0
	}
	for _, o := range a.other {
		if o.name == name {
			return o.value, true
		}
	}
	return 0, false
}

// Each calls fn for every resource in the list, the usual ones first.
func (a *Amounts) Each(fn func(name corev1.ResourceName, value int64, format resource.Format)) {
	for i := range numFixed {
		if a.present&(1<<i) != 0 {
			fn(fixedNames[i], a.fixed[i], a.formats[i].format())
		}
	}
	for _, o := range a.other {
		fn(o.name, o.value, o.format.format())
	}
}

// AddTo adds every amount of a to sums, by resource name.
func (a *Amounts) AddTo(sums map[corev1.ResourceName]int64) {
	for i := range numFixed {
		if a.present&(1<<i) != 0 {
			sums[fixedNames[i]] += a.fixed[i]
		}
	}
	for _, o := range a.other {
		sums[o.name] += o.value
	}
}

// ResourceList renders a as a ResourceList in the formats it came in.
func (a *Amounts) ResourceList() corev1.ResourceList {
	if a.present == 0 && len(a.other) == 0 {
		return nil
	}
	out := make(corev1.ResourceList, int(popcount(a.present))+len(a.other))
	a.Each(func(name corev1.ResourceName, v int64, f resource.Format) {
		out[name] = QuantityOf(name, v, f)
	})
	return out
}

// QuantityOf is the Quantity of an amount in the unit Amounts use for name.
func QuantityOf(name corev1.ResourceName, v int64, f resource.Format) resource.Quantity {
	if name == corev1.ResourceCPU {
		return *resource.NewMilliQuantity(v, f)
	}
	return *resource.NewQuantity(v, f)
}

func popcount(b uint8) uint8 {
	n := uint8(0)
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// amountsBuilder accumulates a list before it is frozen into Amounts.
type amountsBuilder struct{ a Amounts }

// update sets name's amount to q when absent (keeping q's format), else to
// merge of the current amount and q's.
func (b *amountsBuilder) update(name corev1.ResourceName, q resource.Quantity, merge func(old, v int64) int64) {
	v := AmountOf(name, q)
	if i := slotOf(name); i >= 0 {
		if b.a.present&(1<<i) == 0 {
			b.a.fixed[i], b.a.formats[i] = v, codeOf(q.Format)
			b.a.present |= 1 << i
		} else {
			b.a.fixed[i] = merge(b.a.fixed[i], v)
		}
		return
	}
	for j := range b.a.other {
		if o := &b.a.other[j]; o.name == name {
			o.value = merge(o.value, v)
			return
		}
	}
	b.a.other = append(b.a.other, otherAmount{name: name, value: v, format: codeOf(q.Format)})
}

func sum(old, v int64) int64 { return old + v }

func larger(old, v int64) int64 { return max(old, v) }

func (b *amountsBuilder) add(list corev1.ResourceList) {
	for name, q := range list {
		b.update(name, q, sum)
	}
}

// raise raises every resource to at least the value in list; an absent
// resource counts as zero, so a zero or negative value does not add it.
func (b *amountsBuilder) raise(list corev1.ResourceList) {
	for name, q := range list {
		if _, ok := b.a.Get(name); ok || AmountOf(name, q) > 0 {
			b.update(name, q, larger)
		}
	}
}

// amounts freezes the list; the other resources get an exactly sized
// slice sorted by name, so that equal lists compare and render alike.
func (b *amountsBuilder) amounts() Amounts {
	a := b.a
	if len(a.other) > 0 {
		a.other = append([]otherAmount(nil), a.other...)
		slices.SortFunc(a.other, func(x, y otherAmount) int { return strings.Compare(string(x.name), string(y.name)) })
	}
	return a
}

// amountsOf is list in compact form.
func amountsOf(list corev1.ResourceList) Amounts {
	var b amountsBuilder
	b.add(list)
	return b.amounts()
}
