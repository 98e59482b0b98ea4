package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Sample is one sample of a Prometheus metric in the text format.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Samples returns the samples of metric in a Prometheus text exposition.
func Samples(text, metric string) []Sample {
	var out []Sample
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, metric)
		if !ok || (rest != "" && rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		labels, value, err := parseSample(rest)
		if err != nil {
			continue
		}
		out = append(out, Sample{Labels: labels, Value: value})
	}
	return out
}

// Sum adds the values of the samples for which keep is true (nil keeps all).
func Sum(samples []Sample, keep func(labels map[string]string) bool) float64 {
	total := 0.0
	for _, s := range samples {
		if keep == nil || keep(s.Labels) {
			total += s.Value
		}
	}
	return total
}

// parseSample reads `{k="v",...} value` (labels optional).
func parseSample(s string) (map[string]string, float64, error) {
	labels := map[string]string{}
	if strings.HasPrefix(s, "{") {
		end := -1
		inQuote := false
		for i := 1; i < len(s); i++ {
			switch {
			case s[i] == '\\' && inQuote:
				i++
			case s[i] == '"':
				inQuote = !inQuote
			case s[i] == '}' && !inQuote:
				end = i
			}
			if end >= 0 {
				break
			}
		}
		if end < 0 {
			return nil, 0, fmt.Errorf("unterminated labels in %q", s)
		}
		body := s[1:end]
		for body != "" {
			k, v, ok := strings.Cut(body, `="`)
			if !ok {
				break
			}
			var val strings.Builder
			i := 0
			for ; i < len(v) && v[i] != '"'; i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
				}
				val.WriteByte(v[i])
			}
			labels[strings.TrimSpace(k)] = val.String()
			body = strings.TrimPrefix(v[min(i+1, len(v)):], ",")
		}
		s = s[end+1:]
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, 0, fmt.Errorf("no value in %q", s)
	}
	value, err := strconv.ParseFloat(fields[0], 64)
	return labels, value, err
}

// ScrapeMetrics GETs http://<addr>/metrics, as Prometheus would scrape a
// controller manager's --metrics-bind-address.
func ScrapeMetrics(ctx context.Context, addr string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s/metrics: %s", addr, resp.Status)
	}
	return string(body), nil
}

// Reconciles returns controller-runtime's count of finished reconciles of
// controller in this process with result ("success", "error", "requeue",
// "requeue_after"; "" for all): a test waits for it to grow to know a
// reconcile it caused has run, then checks what that reconcile wrote.
func Reconciles(t testing.TB, controller, result string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatalf("gather controller-runtime metrics: %v", err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if label(m, "controller") == controller && (result == "" || label(m, "result") == result) {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// Family is what a Prometheus text exposition says of one metric family:
// its declared type and the label names of each of its series (for
// histograms and summaries, without le and quantile, so a family has one
// label set per series, not per bucket).
type Family struct {
	Type      string
	LabelSets map[string]bool
}

// Families reads the families of a text exposition by name. A label set is
// the sorted label names joined by ","; "" for a series without labels.
func Families(text string) map[string]*Family {
	out := map[string]*Family{}
	lines := strings.Split(text, "\n")
	for _, line := range lines {
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			if name, typ, ok := strings.Cut(rest, " "); ok {
				out[name] = &Family{Type: strings.TrimSpace(typ), LabelSets: map[string]bool{}}
			}
		}
	}
	for _, line := range lines {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		end := strings.IndexAny(line, "{ ")
		if end < 0 {
			continue
		}
		f := familyOf(out, line[:end])
		if f == nil {
			continue
		}
		labels, _, err := parseSample(line[end:])
		if err != nil {
			continue
		}
		names := make([]string, 0, len(labels))
		for k := range labels {
			if k != "le" && k != "quantile" {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		f.LabelSets[strings.Join(names, ",")] = true
	}
	return out
}

// familyOf finds the family of a sample name (a histogram's _bucket, _sum
// and _count samples belong to the histogram).
func familyOf(families map[string]*Family, sample string) *Family {
	if f, ok := families[sample]; ok {
		return f
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(sample, suffix); ok {
			if f, ok := families[base]; ok && (f.Type == "histogram" || f.Type == "summary") {
				return f
			}
		}
	}
	return nil
}
