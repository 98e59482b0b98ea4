package execution

import (
	"context"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/names"
)

func TestBaseRetain(t *testing.T) {
	desired := obj(t, deployYAML)
	desired.SetLabels(map[string]string{"app": "nginx", "tier": "web"})
	desired.SetAnnotations(map[string]string{"a": "1"})
	observed := obj(t, deployYAML)
	observed.SetResourceVersion("7")
	observed.SetFinalizers([]string{"member.io/keep"})
	observed.SetLabels(map[string]string{
		"app": "old", "tier": "web", "member-added": "x", "dropped-from-template": "y",
	})
	observed.SetAnnotations(map[string]string{
		"a": "0", "deployment.kubernetes.io/revision": "3", "gone": "z",
		names.ManagedLabelsAnnotation:      "app,dropped-from-template,tier",
		names.ManagedAnnotationsAnnotation: "a,gone",
	})
	baseRetain(desired, observed)

	if desired.GetResourceVersion() != "7" || !reflect.DeepEqual(desired.GetFinalizers(), []string{"member.io/keep"}) {
		t.Errorf("resourceVersion %q finalizers %v", desired.GetResourceVersion(), desired.GetFinalizers())
	}
	wantLabels := map[string]string{"app": "nginx", "tier": "web", "member-added": "x"}
	if got := desired.GetLabels(); !reflect.DeepEqual(got, wantLabels) {
		t.Errorf("labels %v, want %v", got, wantLabels)
	}
	// The member's revision and the stale managed lists survive (the lists
	// are replaced by the manifest's own in real Works); "gone" was
	// Propel's and the template dropped it.
	got := desired.GetAnnotations()
	if got["a"] != "1" || got["deployment.kubernetes.io/revision"] != "3" || got["gone"] != "" {
		t.Errorf("annotations %v", got)
	}
}

func TestRetainWithInterpreter(t *testing.T) {
	r := &Reconciler{interp: resourceinterpreter.New(native.New())}
	ctx := context.Background()

	desired := obj(t, deployYAML)
	desired.SetLabels(map[string]string{"app": "nginx", names.RetainReplicasLabel: names.TrueValue})
	observed := obj(t, deployYAML)
	_ = unstructured.SetNestedField(observed.Object, int64(7), "spec", "replicas")
	out, err := r.retain(ctx, desired, observed)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(out.Object, "spec", "replicas"); n != 7 {
		t.Errorf("retain-replicas: %d, want the member's 7", n)
	}

	svc := obj(t, `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  ports: [{port: 80}]
`)
	member := svc.DeepCopy()
	_ = unstructured.SetNestedField(member.Object, "10.0.0.7", "spec", "clusterIP")
	out, err = r.retain(ctx, svc, member)
	if err != nil {
		t.Fatal(err)
	}
	if ip, _, _ := unstructured.NestedString(out.Object, "spec", "clusterIP"); ip != "10.0.0.7" {
		t.Errorf("service clusterIP %q, want the member's", ip)
	}

	cm := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {k: v}\n")
	if _, err := r.retain(ctx, cm, cm.DeepCopy()); err != nil {
		t.Errorf("a kind without a Retain hook must not fail: %v", err)
	}
}

func TestListed(t *testing.T) {
	for _, c := range []struct {
		list, key string
		want      bool
	}{{"a,b,c", "b", true}, {"a,b,c", "c", true}, {"a,bc", "b", false}, {"", "a", false}} {
		if got := listed(c.list, c.key); got != c.want {
			t.Errorf("listed(%q, %q) = %v", c.list, c.key, got)
		}
	}
}
