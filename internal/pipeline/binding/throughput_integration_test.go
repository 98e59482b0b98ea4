package binding

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestThroughput measures Works written per second end to end against a
// real API server: PROPEL_BINDING_THROUGHPUT=<bindings> bindings of three
// clusters each exist before the controllers start; the clock runs until
// every Work exists. Client-side rate limiting is off (the API server's
// priority and fairness applies).
func TestThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PROPEL_BINDING_THROUGHPUT"))
	if n <= 0 {
		t.Skip("set PROPEL_BINDING_THROUGHPUT=<bindings> to measure throughput")
	}
	clusters := []string{"member1", "member2", "member3"}
	e := newEnv(t, clusters...)
	for i := range n {
		deploy := sampleDeployment(t)
		deploy.Name = fmt.Sprintf("app-%d", i)
		e.create(t, deploy)
		rb := nginxBinding(deploy.UID)
		rb.Name, rb.Labels[names.ResourceBindingPermanentIDLabel] = names.BindingName("Deployment", deploy.Name), fmt.Sprintf("id-%d", i)
		rb.Spec.Resource.Name = deploy.Name
		rb.Spec.Clusters = nil
		for _, c := range clusters {
			rb.Spec.Clusters = append(rb.Spec.Clusters, workv1alpha2.TargetCluster{Name: c, Replicas: 1})
		}
		e.create(t, rb)
	}
	start := time.Now()
	e.startManager(t, true, func(cfg *rest.Config) { cfg.QPS, cfg.Burst = -1, 0 })
	want := n * len(clusters)
	harness.Eventually(t, "every Work", func(ctx context.Context) (bool, error) {
		works := &metav1.PartialObjectMetadataList{}
		works.SetGroupVersionKind(workv1alpha1.GroupVersion.WithKind("WorkList"))
		if err := e.Client.List(ctx, works); err != nil {
			return false, err
		}
		return len(works.Items) == want, nil
	})
	elapsed := time.Since(start)
	writes := e.writes.Len()
	t.Logf("%d Works in %v including cache sync: %.0f Works/s; %d writes, %v mean write latency", want, elapsed.Round(time.Millisecond),
		float64(want)/elapsed.Seconds(), writes, (e.writes.Took() / time.Duration(max(writes, 1))).Round(time.Microsecond))
	e.serverCeiling(t, want)
}

// serverCeiling creates as many copies of the Works directly, 40 at a
// time, to show what the API server alone sustains on this machine.
func (e *testEnv) serverCeiling(t *testing.T, n int) {
	ctx := context.Background()
	var works workv1alpha1.WorkList
	if err := e.Client.List(ctx, &works); err != nil {
		t.Fatal(err)
	}
	e.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ceiling"}})
	sem, errs := make(chan struct{}, 40), make(chan error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range works.Items {
		w := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "ceiling", Name: fmt.Sprintf("w-%d", i),
			Labels: works.Items[i].Labels, Annotations: works.Items[i].Annotations}, Spec: works.Items[i].Spec}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs <- e.Client.Create(ctx, w)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	t.Logf("the API server alone: %d Work creates in %v: %.0f Works/s", n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
}
