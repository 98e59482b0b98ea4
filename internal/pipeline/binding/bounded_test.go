package binding

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/pkg/apis"
)

// TestSyncWorkFailedEventIsBounded: a failure whose text is 20 MiB (a
// member's or an interpreter's message) reaches the SyncWorkFailed events
// on the binding and the template truncated, with the marker.
func TestSyncWorkFailedEventIsBounded(t *testing.T) {
	huge := errors.New(strings.Repeat("x", 20<<20))
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithInterceptorFuncs(interceptor.Funcs{
		List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error { return huge },
	}).Build()
	rec := record.NewFakeRecorder(10)
	r := &reconciler{Deps: Deps{Client: c, Recorder: rec}, kind: rbKind, writers: 1}
	b := rbKind.wrap(exampleBinding())

	err := r.syncWorks(context.Background(), b, exampleTemplate(t), b.targets(), nil)
	if !errors.Is(err, huge) {
		t.Fatalf("syncWorks: %.200v, want the List error", err)
	}
	close(rec.Events)
	n := 0
	for e := range rec.Events {
		n++
		msg := strings.TrimPrefix(e, "Warning SyncWorkFailed ")
		if msg == e {
			t.Errorf("unexpected event %.200q", e)
			continue
		}
		if len(msg) > boundedtext.DefaultLimit || !boundedtext.IsTruncated(msg) {
			t.Errorf("event message of %d bytes, truncated %v: want at most %d with the marker",
				len(msg), boundedtext.IsTruncated(msg), boundedtext.DefaultLimit)
		}
	}
	if n != 2 {
		t.Errorf("recorded %d events, want SyncWorkFailed on the binding and the template", n)
	}
	if bounded := boundedtext.Error(err); len(bounded.Error()) > boundedtext.DefaultLimit || !errors.Is(bounded, huge) {
		t.Errorf("the error Reconcile returns is %d bytes long", len(bounded.Error()))
	}
}
