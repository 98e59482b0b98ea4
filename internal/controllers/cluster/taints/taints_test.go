package taints

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		taints []corev1.Taint
		want   string
	}{
		{nil, "cluster now does not have taints"},
		{[]corev1.Taint{{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoSchedule}},
			"cluster now has taints([{Key:cluster.karmada.io/not-ready,Effect:NoSchedule}])"},
		{[]corev1.Taint{{Key: "a", Value: "v", Effect: corev1.TaintEffectNoExecute}, {Key: "b", Effect: corev1.TaintEffectNoSchedule}},
			"cluster now has taints([{Key:a,Value:v,Effect:NoExecute},{Key:b,Effect:NoSchedule}])"},
	} {
		if got := Summary(tc.taints); got != tc.want {
			t.Errorf("Summary(%v) = %q, want %q", tc.taints, got, tc.want)
		}
	}
}

func TestIndexMatchesKeyAndEffect(t *testing.T) {
	list := []corev1.Taint{{Key: "a", Value: "1", Effect: corev1.TaintEffectNoSchedule}, {Key: "a", Value: "2", Effect: corev1.TaintEffectNoExecute}}
	if i := Index(list, corev1.Taint{Key: "a", Effect: corev1.TaintEffectNoExecute}); i != 1 {
		t.Errorf("Index = %d, want 1 (value ignored, effect counts)", i)
	}
	if i := Index(list, corev1.Taint{Key: "b", Effect: corev1.TaintEffectNoExecute}); i != -1 {
		t.Errorf("Index of an absent taint = %d", i)
	}
}
