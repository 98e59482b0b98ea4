package webhook

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

// BenchmarkWebhookRoundTrip measures GetReplicas through the layer against
// a loopback TLS server running the SDK handler: request encoding, one
// HTTP/2 round trip on a pooled connection, decoding and verification.
func BenchmarkWebhookRoundTrip(b *testing.B) {
	srv := webhooktest.NewServer(b, interpreter.NewWebhook(interpreter.HandlerFunc(
		func(context.Context, interpreter.Request) interpreter.Response {
			r := interpreter.Succeeded("")
			r.Replicas = ptr.To[int32](3)
			return r
		}), nil))
	i := newLoaded(b, srv)
	ctx := testContext(b)
	obj := workload()
	if _, _, err := i.GetReplicas(ctx, obj); err != nil { // warm the connection
		b.Fatal(err)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, _, err := i.GetReplicas(ctx, obj); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds()), "p99-µs")
}
