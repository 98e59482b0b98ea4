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

// The totals are checked by a scan of the encoded request before it is
// decoded (checkTotals), rather than counted by the decoders as they go:
//   - the scan allocates nothing, so an oversized request costs one pass
//     over bytes gRPC already holds, whatever it would decode to;
//   - tolerations, node affinity and quantities are embedded Kubernetes
//     objects that the decoders keep as opaque bytes and the estimator
//     decodes later; only a scan that knows their field numbers counts
//     them before anything is decoded;
//   - the scan depends on the field numbers of estimator.proto alone, not
//     on the decoders: were these replaced by code generated from the
//     proto, Codec.Unmarshal would call checkTotals before the generated
//     Unmarshal and the limits would hold unchanged.

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
		2: {name: "nodeSelector", count: mapEntriesTotal},
		4: {name: "nodeAffinityBytes", body: nodeAffinityShape},
		5: {name: "tolerationsBytes", count: tolerationsTotal},
	}
	resourceEntryShape             = shape{2: {name: "value", maxLen: MaxQuantityBytes}}
	componentRequirementsShape     = shape{1: {name: "nodeClaim", body: nodeClaimShape}, 4: {name: "resourceRequestBytes", count: mapEntriesTotal, body: resourceEntryShape}}
	componentShape                 = shape{2: {name: "replicaRequirements", body: componentRequirementsShape}}
	assumedWorkloadShape           = shape{2: {name: "components", count: componentsTotal, body: componentShape}}
	replicaRequirementsShape       = shape{1: {name: "nodeClaim", body: nodeClaimShape}, 5: {name: "resourceRequestBytes", count: mapEntriesTotal, body: resourceEntryShape}}
	maxAvailableReplicasShape      = shape{2: {name: "replicaRequirements", body: replicaRequirementsShape}, 3: {name: "assumedWorkloads", body: assumedWorkloadShape}}
	maxAvailableComponentSetsShape = shape{2: {name: "components", count: componentsTotal, body: componentShape}, 4: {name: "assumedWorkloads", body: assumedWorkloadShape}}
)

// checkTotals scans the encoded message b of shape s and returns an error
// naming the field and the limit when it holds more than a total allows,
// or is malformed where the scan descends.
func checkTotals(message string, s shape, b []byte) error {
	var t totals
	if err := t.scan(s, b); err != nil {
		return fmt.Errorf("decode %s: %w", message, err)
	}
	return nil
}

// totals counts the elements seen so far.
type totals [numTotals]int

func (t *totals) scan(s shape, b []byte) error {
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
