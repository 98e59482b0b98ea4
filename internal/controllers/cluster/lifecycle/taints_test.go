package lifecycle

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ready(status metav1.ConditionStatus) []metav1.Condition {
	return []metav1.Condition{{Type: "Ready", Status: status}}
}

func TestTaintsFollowReadyCondition(t *testing.T) {
	user := corev1.Taint{Key: "team", Value: "a", Effect: corev1.TaintEffectNoSchedule}
	oldStamp := metav1.NewTime(time.Unix(100, 0))
	notReadyOld := notReadyTaint
	notReadyOld.TimeAdded = &oldStamp
	now := time.Unix(200, 0)
	cases := []struct {
		name       string
		conditions []metav1.Condition
		taints     []corev1.Taint
		want       []string
		changed    bool
	}{
		{"no Ready condition adds not-ready", nil, nil, []string{notReadyTaint.Key}, true},
		{"no Ready condition keeps unreachable", nil, []corev1.Taint{unreachableTaint}, []string{unreachableTaint.Key, notReadyTaint.Key}, true},
		{"False adds not-ready and removes unreachable", ready(metav1.ConditionFalse), []corev1.Taint{user, unreachableTaint}, []string{"team", notReadyTaint.Key}, true},
		{"Unknown adds unreachable and removes not-ready", ready(metav1.ConditionUnknown), []corev1.Taint{notReadyOld}, []string{unreachableTaint.Key}, true},
		{"True removes both", ready(metav1.ConditionTrue), []corev1.Taint{notReadyOld, user, unreachableTaint}, []string{"team"}, true},
		{"True without taints changes nothing", ready(metav1.ConditionTrue), []corev1.Taint{user}, []string{"team"}, false},
		{"False already tainted changes nothing", ready(metav1.ConditionFalse), []corev1.Taint{notReadyOld}, []string{notReadyTaint.Key}, false},
		{"a NoExecute taint of the same key is not ours", ready(metav1.ConditionTrue),
			[]corev1.Taint{{Key: notReadyTaint.Key, Effect: corev1.TaintEffectNoExecute}}, []string{notReadyTaint.Key}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			add, remove := taintChange(c.conditions)
			got, changed := applyTaints(c.taints, add, remove, now)
			if changed != c.changed {
				t.Errorf("changed = %v, want %v", changed, c.changed)
			}
			if len(got) != len(c.want) {
				t.Fatalf("taints %v, want keys %v", got, c.want)
			}
			for i, k := range c.want {
				if got[i].Key != k {
					t.Errorf("taint %d = %s, want %s", i, got[i].Key, k)
				}
				if added := !containsTaint(c.taints, got[i]); added && (got[i].TimeAdded == nil || !got[i].TimeAdded.Time.Equal(now)) {
					t.Errorf("added taint %s has timeAdded %v, want %v", k, got[i].TimeAdded, now)
				}
			}
			for _, tt := range got {
				if tt.MatchTaint(&notReadyTaint) && containsTaint(c.taints, tt) && !tt.TimeAdded.Equal(&oldStamp) {
					t.Errorf("existing taint %s restamped", tt.Key)
				}
			}
		})
	}
}

func TestStampNoExecute(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-time.Hour))
	taints := []corev1.Taint{
		{Key: "a", Effect: corev1.TaintEffectNoExecute},
		{Key: "b", Effect: corev1.TaintEffectNoExecute, TimeAdded: &earlier},
		{Key: "c", Effect: corev1.TaintEffectNoSchedule},
	}
	if !stampNoExecute(taints, now) {
		t.Fatal("nothing stamped")
	}
	if !taints[0].TimeAdded.Time.Equal(now) || !taints[1].TimeAdded.Time.Equal(earlier.Time) || taints[2].TimeAdded != nil {
		t.Errorf("stamped %+v", taints)
	}
	if stampNoExecute(taints, now) {
		t.Error("second pass stamped again")
	}
}
