package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/test/harness"
)

// memberReadyReplicas is what the template-status stage writes into every
// member Deployment's status: the template's aggregate is members times it.
const memberReadyReplicas = 2

// templateStage is the record of the template-status stage (-template-status):
// every member reports a status change of every Deployment, and the stage
// lasts until every template carries the aggregate.
type templateStage struct {
	patched, done time.Duration // from the first member status patch
	templates     int
	before, after map[string]float64
	cpu           *cpuMeter
}

// runTemplateStatusStage patches the status of every member Deployment
// (20 requests at a time per member) and waits until every template's
// status.readyReplicas is the sum over the members, measuring each
// process's CPU over the stage.
func runTemplateStatusStage(ctx context.Context, env *harness.Env, cm *localenv.Process, n int) (*templateStage, error) {
	want := int32(memberReadyReplicas * len(env.Members))
	var (
		mu   sync.Mutex
		seen = map[string]time.Time{}
	)
	record := func(obj interface{}) {
		d, ok := obj.(*appsv1.Deployment)
		if !ok || !strings.HasPrefix(d.Name, "bench-") || d.Status.ReadyReplicas != want {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, ok := seen[d.Name]; !ok {
			seen[d.Name] = time.Now()
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(env.Kube, 0, informers.WithNamespace("default"))
	inf := factory.Apps().V1().Deployments().Informer()
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: record, UpdateFunc: func(_, obj interface{}) { record(obj) },
	}); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	factory.WaitForCacheSync(stop)

	st := &templateStage{templates: n, cpu: newCPUMeter(env)}
	var err error
	if st.before, err = writeCounts(ctx, env); err != nil {
		return nil, err
	}
	st.cpu.begin()
	st.cpu.controllerManager(cm)
	start := time.Now()
	fmt.Fprintf(os.Stderr, "bench: template status: patching the status of %d Deployments in %d members\n", n, len(env.Members))
	patch := []byte(fmt.Sprintf(`{"status":{"replicas":%d,"updatedReplicas":%[1]d,"readyReplicas":%[1]d,"availableReplicas":%[1]d}}`, memberReadyReplicas))
	var wg sync.WaitGroup
	errs := make(chan error, len(env.Members))
	for _, m := range env.Members {
		kube, err := kubernetes.NewForConfig(m.Config)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- patchConcurrently(ctx, kube, n, 20, patch)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return nil, err
		}
	}
	st.patched = time.Since(start)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		mu.Lock()
		count := len(seen)
		mu.Unlock()
		fmt.Fprintf(progressOut, "\rbench: templates with the aggregated status %d   ", count)
		if count >= n {
			fmt.Fprintln(progressOut)
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for template statuses: %w", ctx.Err())
		case <-tick.C:
		}
	}
	mu.Lock()
	for _, t := range seen {
		st.done = max(st.done, t.Sub(start))
	}
	mu.Unlock()
	time.Sleep(5 * time.Second) // trailing writes
	st.cpu.end()
	if st.after, err = writeCounts(ctx, env); err != nil {
		return nil, err
	}
	return st, nil
}

func patchConcurrently(ctx context.Context, kube kubernetes.Interface, n, workers int, patch []byte) error {
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				name := fmt.Sprintf("bench-%d", i)
				if _, err := kube.AppsV1().Deployments("default").Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
					once.Do(func() { first = fmt.Errorf("patch status of %s: %w", name, err) })
				}
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return first
}

// report prints the stage's time, writes and CPU per template.
func (st *templateStage) report() {
	n := float64(st.templates)
	fmt.Printf("\nTemplate status stage: %d member status patches per member in %.1f s; every template aggregated %.1f s after the first patch.\n\n",
		st.templates, st.patched.Seconds(), st.done.Seconds())
	fmt.Println("| writes per template | API server, verb, resource |\n|---|---|")
	for k, v := range st.after {
		if d := v - st.before[k]; d > 0 {
			fmt.Printf("| %.2f | %s |\n", d/n, k)
		}
	}
	fmt.Println("\n| process | CPU s | CPU ms per template |\n|---|---|---|")
	for _, name := range st.cpu.order {
		d := st.cpu.spent[name]
		fmt.Printf("| %s | %.1f | %.2f |\n", name, d.Seconds(), d.Seconds()*1000/n)
	}
	t := st.cpu.propelTotal()
	fmt.Printf("| **controller manager + control-plane kube-apiserver + etcd** | **%.1f** | **%.2f** |\n", t.Seconds(), t.Seconds()*1000/n)
}
