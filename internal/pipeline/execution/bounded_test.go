package execution

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// hugeApply is the outcome of a manifest the member refused with a 20 MiB
// message.
func hugeApply() (applied, error) {
	err := errors.New(strings.Repeat("x", 20<<20))
	return applied{
		ref:      workapply.Ref{GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Namespace: "default", Name: "web"},
		template: &corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"},
		err:      err,
	}, err
}

func TestSyncFailedEventIsBounded(t *testing.T) {
	failed, huge := hugeApply()
	rec := record.NewFakeRecorder(4)
	r := &Reconciler{recorder: rec}
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1", Name: "web"}}
	err := r.report(context.Background(), work, "member1", []applied{failed})
	if !errors.Is(err, huge) {
		t.Fatalf("report: %.200v, want the apply error", err)
	}
	close(rec.Events)
	n := 0
	for e := range rec.Events {
		n++
		msg, ok := strings.CutPrefix(e, "Warning SyncFailed ")
		if !ok {
			t.Errorf("unexpected event %.200q", e)
			continue
		}
		if len(msg) > boundedtext.DefaultLimit || !boundedtext.IsTruncated(msg) {
			t.Errorf("SyncFailed message of %d bytes: want at most %d with the marker", len(msg), boundedtext.DefaultLimit)
		}
	}
	if n != 2 {
		t.Errorf("recorded %d events, want two SyncFailed (on the template and on the Work)", n)
	}
}
