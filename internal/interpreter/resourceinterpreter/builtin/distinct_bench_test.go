package builtin

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
)

// GetReplicas and GetDependencies of the built-in CloneSet interpreter
// (Karmada's own customization) with the kube module's pod-template memo
// hit on every call ("memo": one object) and never hit ("distinct": every
// iteration a different object whose template differs in requests and
// references). Run with a fixed -benchtime=Nx: N objects are built before
// the clock starts.
//
//	go test -run '^$' -bench 'CloneSetDistinct' -benchtime=2000x -count=5 ./internal/interpreter/resourceinterpreter/builtin/
func cloneSet(i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
		"metadata": map[string]any{"name": fmt.Sprintf("web-%d", i), "namespace": "shop", "generation": int64(3)},
		"spec": map[string]any{"replicas": int64(3), "template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec": map[string]any{
				"serviceAccountName": fmt.Sprintf("sa-%d", i),
				"nodeSelector":       map[string]any{"disk": "ssd"},
				"containers": []any{map[string]any{
					"name": "nginx", "image": fmt.Sprintf("nginx:1.%d", i),
					"resources": map[string]any{"requests": map[string]any{"cpu": fmt.Sprintf("%dm", 100+i%900), "memory": "64Mi"}},
					"envFrom":   []any{map[string]any{"configMapRef": map[string]any{"name": fmt.Sprintf("cm-%d", i)}}},
				}},
				"volumes": []any{map[string]any{"name": "cert", "secret": map[string]any{"secretName": fmt.Sprintf("cert-%d", i)}}},
			},
		}},
	}}
}

func BenchmarkCloneSetDistinct(b *testing.B) {
	ctx := context.Background()
	l := New(customization.Options{})
	ops := map[string]func(*unstructured.Unstructured) error{
		"GetReplicas": func(o *unstructured.Unstructured) error {
			n, req, err := l.GetReplicas(ctx, o)
			if err == nil && (n != 3 || req == nil) {
				err = fmt.Errorf("got %d %v", n, req)
			}
			return err
		},
		"GetDependencies": func(o *unstructured.Unstructured) error {
			deps, err := l.GetDependencies(ctx, o)
			if err == nil && len(deps) != 3 {
				err = fmt.Errorf("got %d dependencies", len(deps))
			}
			return err
		},
	}
	for _, name := range []string{"GetReplicas", "GetDependencies"} {
		op := ops[name]
		for _, mode := range []string{"memo", "distinct"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				objs := make([]*unstructured.Unstructured, b.N)
				for i := range objs {
					if mode == "memo" {
						objs[i] = cloneSet(0)
					} else {
						objs[i] = cloneSet(i + 1)
					}
				}
				if err := op(cloneSet(0)); err != nil {
					b.Fatal(err)
				}
				measure(b, func(i int) {
					if err := op(objs[i]); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// measure runs op b.N times and also reports the CPU time of the running
// thread per operation ("cpu-ns/op"), which, unlike ns/op, does not grow
// when other processes compete for the CPU.
func measure(b *testing.B, op func(i int)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	start := threadCPU()
	for n := 0; n < b.N; n++ {
		op(n)
	}
	b.ReportMetric(float64(threadCPU()-start)/float64(b.N), "cpu-ns/op")
}

// threadCPU is the CPU time (user + system) of the calling thread
// (Linux's RUSAGE_THREAD).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
