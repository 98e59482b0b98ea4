package federatedhpa

import (
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa/replicas"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// EventReasonInvalidMemberMetrics: members reported metric values the
// calculation could not take as given (negative ones, ignored; ones
// beyond int64 milli-units, capped). One event per reconcile names them.
const EventReasonInvalidMemberMetrics = "InvalidMemberMetrics"

// maxReportedClusters bounds how many clusters one event names per kind
// of value; the rest are counted.
const maxReportedClusters = 5

// sampleReport counts, per member cluster, the metric values of one
// reconcile that were not taken as reported.
type sampleReport struct {
	negative, saturated map[string]int
}

// milliValue is the value cluster reported, in milli-units, and whether
// to use it: a negative value is no measure and is left out; one beyond
// int64 milli-units is capped (Quantity.MilliValue would wrap it around
// to a negative or small number).
func (s *sampleReport) milliValue(cluster string, q resource.Quantity) (int64, bool) {
	if q.Sign() < 0 {
		s.negative = count(s.negative, cluster)
		return 0, false
	}
	v := replicas.MilliValue(q)
	if v == math.MaxInt64 {
		s.saturated = count(s.saturated, cluster)
	}
	return v, true
}

func count(m map[string]int, cluster string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[cluster]++
	return m
}

// message summarises the report, bounded; "" when every value was taken
// as reported.
func (s *sampleReport) message() string {
	var parts []string
	if len(s.negative) > 0 {
		parts = append(parts, "ignored negative metric values from "+clusterCounts(s.negative))
	}
	if len(s.saturated) > 0 {
		parts = append(parts, "capped metric values too large to count from "+clusterCounts(s.saturated))
	}
	return boundedtext.String(strings.Join(parts, "; "))
}

// clusterCounts is "cluster a (n), cluster b (m)" for the first clusters
// by name, and how many more there are.
func clusterCounts(m map[string]int) string {
	clusters := make([]string, 0, len(m))
	for c := range m {
		clusters = append(clusters, c)
	}
	slices.Sort(clusters)
	parts := make([]string, 0, maxReportedClusters+1)
	for _, c := range clusters[:min(len(clusters), maxReportedClusters)] {
		parts = append(parts, fmt.Sprintf("cluster %s (%d)", boundedtext.Limit(c, 64), m[c]))
	}
	if more := len(clusters) - maxReportedClusters; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more clusters", more))
	}
	return strings.Join(parts, ", ")
}

// reportSamples records the reconcile's report as one Warning event.
func (r *Reconciler) reportSamples(fhpa *autoscalingv1alpha1.FederatedHPA, report *sampleReport) {
	if msg := report.message(); msg != "" {
		r.recorder.Event(fhpa, corev1.EventTypeWarning, EventReasonInvalidMemberMetrics, msg)
	}
}
