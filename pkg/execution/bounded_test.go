package execution

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/status/manifeststatus"
)

// hugeApply is the outcome of a manifest the member refused with a 20 MiB
// message.
func hugeApply() (applied, error) {
	err := errors.New(strings.Repeat("x", 20<<20))
	return applied{
		ref:      manifeststatus.Ref{GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Namespace: "default", Name: "web"},
		template: &corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"},
		err:      err,
	}, err
}

func TestAppliedConditionMessageIsBounded(t *testing.T) {
	failed, _ := hugeApply()
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1", Name: "web"}}
	s := newStatusUpdate(work)
	s.setApplied([]applied{failed, {ref: manifeststatus.Ref{Ordinal: 1}}})
	c := meta.FindStatusCondition(s.work.Status.Conditions, workv1alpha1.WorkApplied)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != workv1alpha1.WorkAppliedFailedReason {
		t.Fatalf("Applied condition %+.200v, want False/%s", c, workv1alpha1.WorkAppliedFailedReason)
	}
	if len(c.Message) > boundedtext.DefaultLimit || !boundedtext.IsTruncated(c.Message) {
		t.Errorf("Applied message of %d bytes, truncated %v: want at most %d with the marker",
			len(c.Message), boundedtext.IsTruncated(c.Message), boundedtext.DefaultLimit)
	}
	if want := "Failed to apply all manifests (1/2): xxx"; !strings.HasPrefix(c.Message, want) {
		t.Errorf("Applied message starts %.60q, want %q", c.Message, want)
	}
}

func TestAppliedConditionMessageKeepsShortText(t *testing.T) {
	work := &workv1alpha1.Work{}
	s := newStatusUpdate(work)
	s.setApplied([]applied{{err: errors.New("denied")}})
	c := meta.FindStatusCondition(s.work.Status.Conditions, workv1alpha1.WorkApplied)
	if want := "Failed to apply all manifests (0/1): denied"; c == nil || c.Message != want {
		t.Errorf("Applied message %+v, want %q", c, want)
	}
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
	if n != 1 {
		t.Errorf("recorded %d events, want one SyncFailed", n)
	}
}
