package estimatorwire

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Totals bound what one request holds in all, however it nests. The
// per-list limits alone multiply: 4,096 assumed workloads of 128
// components are 524,288 components, which a 4 MiB message encodes in 10
// bytes each and which decode to some 75 times their size. The totals keep
// a request's decoded form, and the estimator's work on it, a small
// multiple of what the estimator actually takes.
const (
	// MaxRequestComponents bounds the components of a request: its own and
	// those of all its assumed workloads.
	MaxRequestComponents = 4096
	// MaxRequestTolerations bounds the tolerations of all node claims.
	MaxRequestTolerations = 8192
	// MaxRequestMapEntries bounds the node selector and resource request
	// entries of all requirements.
	MaxRequestMapEntries = 16384
	// MaxRequestAffinityTerms bounds the node selector terms of all
	// nodeAffinityBytes.
	MaxRequestAffinityTerms = 4096
	// MaxRequestAffinityRequirements bounds the matchExpressions and
	// matchFields of all those terms.
	MaxRequestAffinityRequirements = 8192
	// MaxRequestAffinityValues bounds the values of all those requirements.
	MaxRequestAffinityValues = 32768
	// MaxQuantityBytes bounds one encoded resource.Quantity: a quantity is a
	// few dozen characters, and parsing one of a million digits takes
	// seconds.
	MaxQuantityBytes = 128
)

// The totals, and the per-list limits, are checked by a scan of the
// encoded request before it is decoded (checkTotals, called by
// Codec.Unmarshal before the generated code decodes):
//   - the scan allocates nothing, so an oversized request costs one pass
//     over bytes gRPC already holds, whatever it would decode to;
//   - tolerations, node affinity and quantities are embedded Kubernetes
//     objects that the messages keep as opaque bytes and the estimator
//     decodes later; only a scan that knows their field numbers counts
//     them before anything is decoded;
//   - the scan depends on the field numbers of estimator.proto alone.

// total names one of the totals above.
type total int

const (
	noTotal total = iota
	componentsTotal
	tolerationsTotal
	mapEntriesTotal
	affinityTermsTotal
	affinityRequirementsTotal
	affinityValuesTotal
	numTotals
)

// totalLimits are the totals' bounds and what they count, for errors.
var totalLimits = [numTotals]struct {
	max  int
	what string
}{
	componentsTotal:           {MaxRequestComponents, "components"},
	tolerationsTotal:          {MaxRequestTolerations, "tolerations"},
	mapEntriesTotal:           {MaxRequestMapEntries, "node selector and resource request entries"},
	affinityTermsTotal:        {MaxRequestAffinityTerms, "node affinity terms"},
	affinityRequirementsTotal: {MaxRequestAffinityRequirements, "node affinity match expressions and fields"},
	affinityValuesTotal:       {MaxRequestAffinityValues, "node affinity values"},
}

// shape is what the scan knows of a message, indexed by field number:
// the length-delimited fields it counts, bounds or descends into. Other
// fields, and these fields with another wire type, are skipped as the
// decoders skip them.
type shape []fieldShape

type fieldShape struct {
	name string
	// count is the total each occurrence of the field counts against.
	count total
	// max bounds the field's occurrences in one message (0: no bound but
	// the totals): the per-list limits.
	max int
	// maxLen bounds the field's encoded length (0: unbounded but for the
	// message size).
	maxLen int
	// body is the embedded message's shape; nil when not descended into.
	body shape
}

// The shapes of the requests, from estimator.proto and, for the embedded
// Kubernetes objects, k8s.io/api/core/v1/generated.proto.
var (
	affinityRequirementShape = shape{3: {name: "values", count: affinityValuesTotal}}
	affinityTermShape        = shape{
		1: {name: "matchExpressions", count: affinityRequirementsTotal, body: affinityRequirementShape},
		2: {name: "matchFields", count: affinityRequirementsTotal, body: affinityRequirementShape},
	}
	nodeAffinityShape = shape{1: {name: "nodeSelectorTerms", count: affinityTermsTotal, body: affinityTermShape}}
	nodeClaimShape    = shape{
		2: {name: "nodeSelector", count: mapEntriesTotal, max: MaxMapEntries},
		4: {name: "nodeAffinityBytes", body: nodeAffinityShape},
		5: {name: "tolerationsBytes", count: tolerationsTotal, max: MaxTolerations},
	}
	resourceEntryShape         = shape{2: {name: "value", maxLen: MaxQuantityBytes}}
	resourceRequestShape       = fieldShape{name: "resourceRequestBytes", count: mapEntriesTotal, max: MaxMapEntries, body: resourceEntryShape}
	componentRequirementsShape = shape{1: {name: "nodeClaim", body: nodeClaimShape}, 4: resourceRequestShape}
	componentsShape            = fieldShape{name: "components", count: componentsTotal, max: MaxComponents, body: shape{2: {name: "replicaRequirements", body: componentRequirementsShape}}}
	assumedWorkloadsShape      = fieldShape{name: "assumedWorkloads", max: MaxAssumedWorkloads, body: shape{2: componentsShape}}
	replicaRequirementsShape   = shape{1: {name: "nodeClaim", body: nodeClaimShape}, 5: resourceRequestShape}

	maxAvailableReplicasShape      = shape{2: {name: "replicaRequirements", body: replicaRequirementsShape}, 3: assumedWorkloadsShape}
	maxAvailableComponentSetsShape = shape{2: componentsShape, 4: assumedWorkloadsShape}
)

// maxShapeFields bounds the length of a shape (its highest field number
// plus one), so that the scan counts a message's fields in an array on
// the stack (TestShapesFitTheScan checks every shape).
const maxShapeFields = 8

// checkTotals scans the encoded message b of shape s and returns an error
// naming the field and the limit when it holds more than a total or a
// per-list limit allows, or is malformed where the scan descends.
func checkTotals(s shape, b []byte) error {
	var t totals
	return t.scan(s, b)
}

// totals counts the elements seen so far.
type totals [numTotals]int

func (t *totals) scan(s shape, b []byte) error {
	var seen [maxShapeFields]int
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if num >= protowire.Number(len(s)) || s[num].name == "" || typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		f := &s[num]
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return fmt.Errorf("%s: %w", f.name, protowire.ParseError(n))
		}
		b = b[n:]
		if seen[num]++; f.max > 0 && seen[num] > f.max {
			return fmt.Errorf("%s: %w (at most %d)", f.name, errLimit, f.max)
		}
		if f.count != noTotal {
			t[f.count]++
			if limit := totalLimits[f.count]; t[f.count] > limit.max {
				return fmt.Errorf("%s: %w: more than %d %s in the request", f.name, errLimit, limit.max, limit.what)
			}
		}
		if f.maxLen > 0 && len(v) > f.maxLen {
			return fmt.Errorf("%s: %d bytes, at most %d", f.name, len(v), f.maxLen)
		}
		if f.body != nil {
			if err := t.scan(f.body, v); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
	}
	return nil
}
