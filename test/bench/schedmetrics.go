package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// schedulingDurationMetric is the scheduler's own time per binding: the
// decision and the write of its result, without the time the binding
// waited in the queue, which scheduleMillis (binding seen to scheduled)
// includes and which grows with the size of a storm.
const schedulingDurationMetric = "karmada_scheduler_e2e_scheduling_duration_seconds"

// algorithmStepMetric times each step of the decision alone (filter,
// score, select, assign replicas), without the write, whose latency
// follows the API server's load in a storm.
const algorithmStepMetric = "karmada_scheduler_scheduling_algorithm_duration_seconds"

// decisionMillis summarises the scheduler's histogram of one run. P50 and
// P99 are upper bounds: the smallest bucket bound holding that share of
// the observations (the buckets double from 1 ms).
type decisionMillis struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	// ByKind counts the decisions by result and schedule type.
	ByKind map[string]uint64 `json:"byKind,omitempty"`
	// AlgorithmMean is the mean of the algorithm's steps per decision, and
	// AlgorithmP99 the sum of the steps' p99 bounds, a bound of the p99 of
	// their sum.
	AlgorithmMean float64 `json:"algorithmMean"`
	AlgorithmP99  float64 `json:"algorithmP99"`
}

// freeLocalAddress returns a loopback address with a port nobody listens
// on now, for the controller manager's metrics.
func freeLocalAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// scrapeDecisionMillis reads the controller manager's /metrics at addr.
func scrapeDecisionMillis(ctx context.Context, addr string) (decisionMillis, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return decisionMillis{}, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return decisionMillis{}, fmt.Errorf("scraping the controller manager's metrics: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return decisionMillis{}, fmt.Errorf("scraping the controller manager's metrics: %s", res.Status)
	}
	return decisionMillisFrom(res.Body)
}

// decisionMillisFrom merges every series of the histogram (all results
// and schedule types) from a text exposition.
func decisionMillisFrom(r io.Reader) (decisionMillis, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return decisionMillis{}, fmt.Errorf("parsing metrics: %w", err)
	}
	fam := families[schedulingDurationMetric]
	if fam == nil {
		return decisionMillis{}, fmt.Errorf("no %s in the metrics", schedulingDurationMetric)
	}
	var out decisionMillis
	out.AlgorithmMean, out.AlgorithmP99 = algorithmMillis(families[algorithmStepMetric])
	var sum float64
	cumulative := map[float64]uint64{}
	out.ByKind = map[string]uint64{}
	for _, m := range fam.GetMetric() {
		h := m.GetHistogram()
		kind := ""
		for _, l := range m.GetLabel() {
			kind += l.GetValue() + "/"
		}
		out.ByKind[strings.TrimSuffix(kind, "/")] += h.GetSampleCount()
		out.Count += h.GetSampleCount()
		sum += h.GetSampleSum()
		for _, b := range h.GetBucket() {
			cumulative[b.GetUpperBound()] += b.GetCumulativeCount()
		}
	}
	if out.Count == 0 {
		return out, nil
	}
	out.Mean = 1000 * sum / float64(out.Count)
	out.P50 = toMillis(bucketQuantile(0.5, out.Count, cumulative))
	out.P99 = toMillis(bucketQuantile(0.99, out.Count, cumulative))
	return out, nil
}

// algorithmMillis is the mean time of the steps per decision (each
// decision runs the filter step once) and the sum of the steps' p99
// bounds; zeros without the histogram.
func algorithmMillis(fam *dto.MetricFamily) (mean, p99 float64) {
	var decisions uint64
	var sum float64
	for _, m := range fam.GetMetric() {
		h := m.GetHistogram()
		sum += h.GetSampleSum()
		cumulative := map[float64]uint64{}
		for _, b := range h.GetBucket() {
			cumulative[b.GetUpperBound()] = b.GetCumulativeCount()
		}
		if h.GetSampleCount() > 0 {
			p99 += toMillis(bucketQuantile(0.99, h.GetSampleCount(), cumulative))
		}
		for _, l := range m.GetLabel() {
			if l.GetName() == "schedule_step" && l.GetValue() == "Filter" {
				decisions = h.GetSampleCount()
			}
		}
	}
	if decisions == 0 {
		return 0, 0
	}
	return 1000 * sum / float64(decisions), p99
}

// bucketQuantile is the smallest bucket bound with at least q of count at
// or below it; -1 when only the overflow bucket reaches it (JSON has no
// infinity).
func bucketQuantile(q float64, count uint64, cumulative map[float64]uint64) float64 {
	bounds := make([]float64, 0, len(cumulative))
	for b := range cumulative {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	need := uint64(math.Ceil(q * float64(count)))
	for _, b := range bounds {
		if cumulative[b] >= need && !math.IsInf(b, 1) {
			return b
		}
	}
	return -1
}

func toMillis(seconds float64) float64 {
	if seconds < 0 {
		return seconds
	}
	return 1000 * seconds
}

func (d decisionMillis) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	return fmt.Sprintf("%d decisions %v, mean %s ms, p50 <= %s ms, p99 <= %s ms; algorithm alone: mean %s ms, p99 <= %s ms",
		d.Count, d.ByKind, f(d.Mean), f(d.P50), f(d.P99), f(d.AlgorithmMean), f(d.AlgorithmP99))
}
