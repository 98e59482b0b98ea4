package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// TestCreateExecutionSpaceFailedIsBounded: an error of 20 MiB (from an
// admission webhook of the control plane, say) reaches the
// CreateExecutionSpaceFailed event truncated, with the marker.
func TestCreateExecutionSpaceFailedIsBounded(t *testing.T) {
	huge := errors.New(strings.Repeat("x", 20<<20))
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error { return huge },
	}).Build()
	r := New(Options{})
	rec := record.NewFakeRecorder(4)
	r.client, r.recorder = c, rec
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m1"}}
	if err := r.createExecutionSpace(context.Background(), cluster, "karmada-es-m1"); !errors.Is(err, huge) {
		t.Fatalf("createExecutionSpace: %.200v, want the Create error", err)
	}
	close(rec.Events)
	const prefix = "Warning " + EventReasonCreateExecutionSpaceFailed + " Failed to create execution space for cluster(m1): xxx"
	n := 0
	for e := range rec.Events {
		n++
		if !strings.HasPrefix(e, prefix) || !boundedtext.IsTruncated(e) || len(e) > len(prefix)+boundedtext.DefaultLimit {
			t.Errorf("event of %d bytes (%.100q...): want %q, at most %d bytes of the error and the marker", len(e), e, prefix, boundedtext.DefaultLimit)
		}
	}
	if n != 1 {
		t.Errorf("recorded %d events, want one", n)
	}
}
