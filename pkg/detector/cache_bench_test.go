package detector

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
)

// claimedDeployment is a Deployment as the control plane serves it once
// Propel has claimed it and aggregated its status: API defaults, three
// managedFields entries (creation, claim, status).
const claimedDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{
"name":"NAME","namespace":"default","uid":"3f1c1d8e-5b0a-4d55-9a43-5e1d2c6f7a10","resourceVersion":"123456","generation":1,
"creationTimestamp":"2025-01-01T00:00:00Z",
"labels":{"bench":"true","propagationpolicy.karmada.io/permanent-id":"6a1f2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b"},
"annotations":{"propagationpolicy.karmada.io/name":"bench","propagationpolicy.karmada.io/namespace":"default"},
"managedFields":[
{"manager":"bench","operation":"Update","apiVersion":"apps/v1","time":"2025-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:bench":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}},
{"manager":"propel-controller-manager","operation":"Update","apiVersion":"apps/v1","time":"2025-01-01T00:00:01Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:propagationpolicy.karmada.io/name":{},"f:propagationpolicy.karmada.io/namespace":{}},"f:labels":{"f:propagationpolicy.karmada.io/permanent-id":{}}}}},
{"manager":"propel-controller-manager","operation":"Update","apiVersion":"apps/v1","time":"2025-01-01T00:00:09Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:availableReplicas":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}},"subresource":"status"}]},
"spec":{"replicas":2,"selector":{"matchLabels":{"app":"NAME"}},"template":{"metadata":{"labels":{"app":"NAME"}},"spec":{"containers":[{"name":"nginx","image":"nginx","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600},
"status":{"observedGeneration":1,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2}}`

// decodedDeployment decodes a fresh claimedDeployment named name, as a
// watch delivers it (no state shared with other objects).
func decodedDeployment(tb testing.TB, name string) *unstructured.Unstructured {
	tb.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(strings.ReplaceAll(claimedDeployment, "NAME", name))); err != nil {
		tb.Fatal(err)
	}
	return u
}

// deploymentTransform is the transform of the Deployment informer.
var deploymentTransform = templateTransform(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})

// BenchmarkTemplateUpdateEvent is the informer's work for a status-only
// update of a claimed Deployment. "event" decodes the watch event's JSON,
// runs the transform and then the update handler (which must drop the
// event); "decode" is the decoding alone, which the watch does anyway.
func BenchmarkTemplateUpdateEvent(b *testing.B) {
	d, err := New(Deps{}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	old, err := deploymentTransform(decodedDeployment(b, "web"))
	if err != nil {
		b.Fatal(err)
	}
	u := decodedDeployment(b, "web")
	u.SetResourceVersion("123457")
	_ = unstructured.SetNestedField(u.Object, int64(1), "status", "readyReplicas")
	event, err := u.MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	decode := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(event); err != nil {
			b.Fatal(err)
		}
		return u
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			decode()
		}
	})
	b.Run("event", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cur, err := deploymentTransform(decode())
			if err != nil {
				b.Fatal(err)
			}
			d.onTemplateUpdate(old, cur)
		}
	})
	if d.queue.Len() != 0 {
		b.Fatal("a status-only update was enqueued")
	}
}

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
		events[i] = []byte(strings.ReplaceAll(claimedDeployment, "NAME", fmt.Sprintf("bench-%d", i)))
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
			obj, err := deploymentTransform(u)
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
