package estimatorserver

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func histogramCount(t *testing.T, o prometheus.Observer) uint64 {
	t.Helper()
	var m dto.Metric
	if err := o.(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

// TestCountRequestsRecordsKarmadaRequestMetrics: every RPC is counted by
// Karmada's result and type (the method name) and timed as step Total; a
// rejected request (such as a cluster name mismatch) is an error.
func TestCountRequestsRecordsKarmadaRequestMetrics(t *testing.T) {
	const method = "/github.com.karmada_io.karmada.pkg.estimator.service.Estimator/MaxAvailableReplicas"
	ok := func(context.Context, any) (any, error) { return "answer", nil }
	mismatch := func(context.Context, any) (any, error) {
		return nil, status.Error(codes.InvalidArgument, "cluster name does not match")
	}
	info := &grpc.UnaryServerInfo{FullMethod: method}
	successes := testutil.ToFloat64(estimatingRequests.WithLabelValues("success", "MaxAvailableReplicas"))
	errs := testutil.ToFloat64(estimatingRequests.WithLabelValues("error", "MaxAvailableReplicas"))
	timed := histogramCount(t, estimatingAlgorithmDuration.WithLabelValues("error", "MaxAvailableReplicas", stepTotal))

	if res, err := countRequests(context.Background(), nil, info, ok); err != nil || res != "answer" {
		t.Fatalf("countRequests = %v, %v; want the handler's answer", res, err)
	}
	if _, err := countRequests(context.Background(), nil, info, mismatch); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("countRequests error = %v, want the handler's", err)
	}
	if got := testutil.ToFloat64(estimatingRequests.WithLabelValues("success", "MaxAvailableReplicas")) - successes; got != 1 {
		t.Errorf("estimating_request_total{result=success} grew by %v, want 1", got)
	}
	if got := testutil.ToFloat64(estimatingRequests.WithLabelValues("error", "MaxAvailableReplicas")) - errs; got != 1 {
		t.Errorf("estimating_request_total{result=error} grew by %v, want 1", got)
	}
	if got := histogramCount(t, estimatingAlgorithmDuration.WithLabelValues("error", "MaxAvailableReplicas", stepTotal)) - timed; got != 1 {
		t.Errorf("estimating_algorithm_duration_seconds{step=Total,result=error} grew by %d, want 1", got)
	}
}

// TestTimedEstimateRecordsExtensionPointAndPlugin: one estimate is one
// run of the extension point and one of the node resource plugin, failed
// or not, and one of the quota plugin when the nodes' step succeeded; its
// answer is the smaller of the two steps'.
func TestTimedEstimateRecordsExtensionPointAndPlugin(t *testing.T) {
	point := extensionPointDuration.WithLabelValues(extensionEstimateComponents)
	plugin := pluginExecutionDuration.WithLabelValues(pluginNodeResource, extensionEstimateComponents)
	quotaPlugin := pluginExecutionDuration.WithLabelValues(pluginResourceQuota, extensionEstimateComponents)
	before, pluginBefore, quotaBefore := histogramCount(t, point), histogramCount(t, plugin), histogramCount(t, quotaPlugin)
	if n, err := timedEstimate(extensionEstimateComponents, func() (int64, error) { return 7, nil }, func() int64 { return unlimited }); n != 7 || err != nil {
		t.Fatalf("timedEstimate = %d, %v; want 7, nil", n, err)
	}
	if n, err := timedEstimate(extensionEstimateComponents, func() (int64, error) { return 7, nil }, func() int64 { return 3 }); n != 3 || err != nil {
		t.Fatalf("timedEstimate with a smaller quota answer = %d, %v; want 3, nil", n, err)
	}
	boom := errors.New("interrupted")
	if _, err := timedEstimate(extensionEstimateComponents, func() (int64, error) { return 0, boom }, func() int64 { return 1 }); !errors.Is(err, boom) {
		t.Fatalf("timedEstimate error = %v, want %v", err, boom)
	}
	if got := histogramCount(t, point) - before; got != 3 {
		t.Errorf("extension point runs grew by %d, want 3", got)
	}
	if got := histogramCount(t, plugin) - pluginBefore; got != 3 {
		t.Errorf("plugin runs grew by %d, want 3", got)
	}
	if got := histogramCount(t, quotaPlugin) - quotaBefore; got != 2 {
		t.Errorf("quota plugin runs grew by %d, want 2", got)
	}
}
