package workstatus

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func TestAppliedConditionMessageIsBounded(t *testing.T) {
	failed := workapply.Manifest{
		Ref: workapply.Ref{GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Namespace: "default", Name: "web"},
		Err: errors.New(strings.Repeat("x", 20<<20)),
	}
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1", Name: "web"}}
	setConditions(work, &workapply.Outcome{Manifests: []workapply.Manifest{failed, {Ref: workapply.Ref{Ordinal: 1}}}})
	c := meta.FindStatusCondition(work.Status.Conditions, workv1alpha1.WorkApplied)
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
	setConditions(work, &workapply.Outcome{Manifests: []workapply.Manifest{{Err: errors.New("denied")}}})
	c := meta.FindStatusCondition(work.Status.Conditions, workv1alpha1.WorkApplied)
	if want := "Failed to apply all manifests (0/1): denied"; c == nil || c.Message != want {
		t.Errorf("Applied message %+v, want %q", c, want)
	}
}

func TestSuspendedOutcomeKeepsApplied(t *testing.T) {
	work := &workv1alpha1.Work{}
	setConditions(work, &workapply.Outcome{})
	setConditions(work, &workapply.Outcome{Suspended: true})
	if !meta.IsStatusConditionTrue(work.Status.Conditions, workv1alpha1.WorkApplied) {
		t.Errorf("a suspended outcome changed Applied: %+v", work.Status.Conditions)
	}
	d := meta.FindStatusCondition(work.Status.Conditions, workv1alpha1.WorkDispatching)
	if d == nil || d.Status != metav1.ConditionFalse || d.Reason != workv1alpha1.WorkSuspendDispatchingReason {
		t.Errorf("Dispatching %+v, want False/%s", d, workv1alpha1.WorkSuspendDispatchingReason)
	}
	before := append([]metav1.Condition(nil), work.Status.Conditions...)
	setConditions(work, &workapply.Outcome{Suspended: true})
	if !conditionsEqual(before, work.Status.Conditions) {
		t.Error("the same outcome twice changed the conditions")
	}
}
