package main

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/propel-mc/propel/test/harness"
)

// writeCounts reads apiserver_request_total from every API server and sums
// the mutating requests by "<server> <verb> <resource>[/<subresource>]",
// leaving out events and leases (bookkeeping, not propagation).
func writeCounts(ctx context.Context, env *harness.Env) (map[string]float64, error) {
	out := map[string]float64{}
	servers := map[string]*rest.Config{"karmada": env.ControlPlane.Config}
	for _, m := range env.Members {
		servers[m.Options.Name] = m.Config
	}
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
			if verb != "POST" && verb != "PUT" && verb != "PATCH" && verb != "DELETE" && verb != "APPLY" {
				continue
			}
			res := labels["resource"]
			if res == "events" || res == "leases" || res == "tokenreviews" || res == "subjectaccessreviews" {
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
