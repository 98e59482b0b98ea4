package templatecontroller

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
)

// deploymentTransform is the transform of the Deployment informer.
var deploymentTransform = templatecache.Transform(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})

// BenchmarkTemplateUpdateEvent is the informer's work for a status-only
// update of a claimed Deployment. "event" decodes the watch event's JSON,
// runs the transform and then the update handler (which must drop the
// event); "decode" is the decoding alone, which the watch does anyway.
func BenchmarkTemplateUpdateEvent(b *testing.B) {
	d := newTestReconciler(b)
	old, err := deploymentTransform(templatetest.DecodedDeployment(b, "web"))
	if err != nil {
		b.Fatal(err)
	}
	u := templatetest.DecodedDeployment(b, "web")
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
