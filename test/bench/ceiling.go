package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// ceilingNamespace holds the copies: no controller acts on Works outside
// the karmada-es-* namespaces.
const ceilingNamespace = "bench-ceiling"

// apiCeiling measures how fast a plain client creates the same Works
// (copies of the benchmark's, in a namespace no controller watches) with
// the binding controller's default concurrency (5 workers x 3 clusters):
// the API server's own limit on this machine, to compare the binding
// stage with. Run it with the controller manager stopped.
func apiCeiling(ctx context.Context, cfg *rest.Config, concurrency int) (int, time.Duration, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = -1 // no client-side rate limit: the API server is what is measured
	c, err := client.New(cfg, client.Options{Scheme: apis.Scheme})
	if err != nil {
		return 0, 0, err
	}
	var works workv1alpha1.WorkList
	if err := c.List(ctx, &works); err != nil {
		return 0, 0, err
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ceilingNamespace}}); err != nil {
		return 0, 0, err
	}
	var copies []client.Object
	for _, w := range works.Items {
		if !strings.HasPrefix(w.Name, "bench-") {
			continue
		}
		copies = append(copies, &workv1alpha1.Work{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: ceilingNamespace, Name: w.Namespace + "-" + w.Name,
				Labels: w.Labels, Annotations: w.Annotations,
			},
			Spec: w.Spec,
		})
	}
	fmt.Fprintf(os.Stderr, "bench: API ceiling: creating %d Works with a plain client, %d at a time\n", len(copies), concurrency)
	start := time.Now()
	err = harness.CreateConcurrently(ctx, c, concurrency, copies)
	return len(copies), time.Since(start), err
}
