package federatedhpa

import (
	"fmt"
	"io"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	metricsv1beta1 "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"

	"github.com/propel-mc/propel/internal/shared/membercluster"
)

// maxMetricsResponseBytes bounds one answer of a member's metrics APIs
// before it is decoded: maxMetricValues values with long names fit.
const maxMetricsResponseBytes = 64 << 20

// memberMetrics are one member's metrics APIs: metrics.k8s.io's
// PodMetrics (the member's metrics server) and custom.metrics.k8s.io (for
// example prometheus-adapter), whose served version is found by discovery.
// Propel asks each member directly; Karmada asks karmada-metrics-adapter
// on its API server.
type memberMetrics struct {
	pods metricsv1beta1.PodMetricsesGetter
	// customAPI finds the version of the custom metrics API the member
	// serves (an error when it serves none).
	customAPI customclient.AvailableAPIsGetter
	custom    customclient.CustomMetricsClient
}

// newMemberMetrics builds m's metrics clients; mapper resolves the kind a
// custom metric describes to its resource. Their answers are cut off at
// maxMetricsResponseBytes.
func newMemberMetrics(m *membercluster.Member, mapper meta.RESTMapper) (*memberMetrics, error) {
	cfg := rest.CopyConfig(m.Config)
	cfg.Wrap(limitResponses(maxMetricsResponseBytes))
	pods, err := metricsv1beta1.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("metrics client: %w", err)
	}
	available := customclient.NewAvailableAPIsGetter(m.Discovery)
	return &memberMetrics{pods: pods, customAPI: available, custom: customclient.NewForConfig(cfg, mapper, available)}, nil
}

// limitResponses makes a response body longer than limit bytes fail to
// read, so that a member cannot make the controller decode an unbounded
// answer.
func limitResponses(limit int64) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err != nil || resp.Body == nil {
				return resp, err
			}
			resp.Body = &limitedBody{body: resp.Body, left: limit + 1, limit: limit}
			return resp, nil
		})
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// limitedBody reads body and fails once it read more than limit bytes
// (left starts one beyond the limit).
type limitedBody struct {
	body        io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	if b.left <= 0 {
		return 0, fmt.Errorf("metrics answer exceeds %d bytes", b.limit)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }
