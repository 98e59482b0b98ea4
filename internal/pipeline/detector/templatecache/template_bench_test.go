package templatecache_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
)

var deployment = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// BenchmarkTemplateCacheHeap fills an informer store with 1,000 claimed
// Deployments, each decoded and run through the transform as a watch
// delivers it, and reports the heap each one holds, after a GC:
// liveB/template is the growth of HeapAlloc (live objects), inuseB/template
// that of HeapInuse (spans in use, which counts the room freed objects
// leave between live ones).
func BenchmarkTemplateCacheHeap(b *testing.B) {
	const n = 1000
	events := make([][]byte, n)
	for i := range events {
		events[i] = []byte(strings.ReplaceAll(templatetest.ClaimedDeployment, "NAME", fmt.Sprintf("bench-%d", i)))
	}
	var live, inuse float64
	for b.Loop() {
		store := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
		before := heap()
		for _, e := range events {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(e); err != nil {
				b.Fatal(err)
			}
			obj, err := templatecache.Transform(deployment)(u)
			if err != nil {
				b.Fatal(err)
			}
			if err := store.Add(obj); err != nil {
				b.Fatal(err)
			}
		}
		after := heap()
		live = float64(after.HeapAlloc-before.HeapAlloc) / n
		inuse = float64(after.HeapInuse-before.HeapInuse) / n
		runtime.KeepAlive(store)
	}
	b.ReportMetric(live, "liveB/template")
	b.ReportMetric(inuse, "inuseB/template")
}

func heap() runtime.MemStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}
