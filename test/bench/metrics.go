package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/propel-mc/propel/test/harness"
)

// writeCounts reads apiserver_request_total from every API server and sums
// the mutating requests by "<server> <verb> <resource>[/<subresource>]",
// leaving out leases and auth reviews (bookkeeping, not propagation).
// Events are counted, but apart from the other writes (see isEventWrite).
func writeCounts(ctx context.Context, env *harness.Env) (map[string]float64, error) {
	servers := map[string]*rest.Config{"karmada": env.ControlPlane.Config}
	for _, m := range env.Members {
		servers[m.Options.Name] = m.Config
	}
	return writeCountsOf(ctx, servers)
}

// writeCountsOf is writeCounts for the API servers given by name.
func writeCountsOf(ctx context.Context, servers map[string]*rest.Config) (map[string]float64, error) {
	return requestCountsOf(ctx, servers, func(verb string) bool {
		return verb == "POST" || verb == "PUT" || verb == "PATCH" || verb == "DELETE" || verb == "APPLY"
	})
}

// requestCountsOf sums apiserver_request_total of the given API servers by
// "<server> <verb> <resource>[/<subresource>]" for the verbs keep accepts,
// leaving out leases and auth reviews.
func requestCountsOf(ctx context.Context, servers map[string]*rest.Config, keep func(verb string) bool) (map[string]float64, error) {
	out := map[string]float64{}
	for name, cfg := range servers {
		kube, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		raw, err := kube.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("metrics of %s: %w", name, err)
		}
		for _, sample := range harness.Samples(string(raw), "apiserver_request_total") {
			labels := sample.Labels
			verb := labels["verb"]
			if !keep(verb) {
				continue
			}
			res := labels["resource"]
			if res == "leases" || res == "tokenreviews" || res == "subjectaccessreviews" {
				continue
			}
			if sub := labels["subresource"]; sub != "" {
				res += "/" + sub
			}
			out[name+" "+verb+" "+res] += sample.Value
		}
	}
	return out, nil
}

// settledWriteCounts is writeCounts once the event writes stopped growing
// for eventSettle (at most eventSettleMax): event recorders write through
// a queue that a loaded API server drains long after the objects settled,
// and counting before it drains would count only part of the events.
func settledWriteCounts(ctx context.Context, env *harness.Env) (map[string]float64, error) {
	deadline := time.Now().Add(eventSettleMax)
	last := -1.0
	for {
		counts, err := writeCounts(ctx, env)
		if err != nil {
			return nil, err
		}
		events := 0.0
		for k, v := range counts {
			if isEventWrite(k) {
				events += v
			}
		}
		if events == last || time.Now().After(deadline) {
			return counts, nil
		}
		last = events
		time.Sleep(eventSettle)
	}
}

const (
	eventSettle    = 5 * time.Second
	eventSettleMax = 3 * time.Minute
)

// isEventWrite reports whether a writeCounts key counts event writes.
func isEventWrite(key string) bool {
	return strings.HasSuffix(key, " events")
}

// eventReason is what the control plane's events of one source, type,
// reason and involved kind add up to: how many Event objects, and how many
// occurrences (their counts).
type eventReason struct {
	key            string
	objects, count int
}

// eventReasons lists the control plane's events, most frequent first.
func eventReasons(ctx context.Context, env *harness.Env) ([]eventReason, error) {
	byKey := map[string]*eventReason{}
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := env.Kube.CoreV1().Events("").List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("list events: %w", err)
		}
		for _, e := range list.Items {
			key := strings.Join([]string{e.Source.Component, e.Type, e.Reason, e.InvolvedObject.Kind}, " ")
			r := byKey[key]
			if r == nil {
				r = &eventReason{key: key}
				byKey[key] = r
			}
			r.objects++
			r.count += int(max(e.Count, 1))
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	out := make([]eventReason, 0, len(byKey))
	for _, r := range byKey {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].count > out[j].count })
	return out, nil
}
