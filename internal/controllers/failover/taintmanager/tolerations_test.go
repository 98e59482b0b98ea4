package taintmanager

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func TestEvictionDelay(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	added := metav1.NewTime(now.Add(-100 * time.Second))
	notReady := corev1.Taint{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}
	other := corev1.Taint{Key: "other", Value: "v", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}
	unstamped := corev1.Taint{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoExecute}
	exists := func(key string, seconds *int64) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
	}
	for _, tc := range []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		want        time.Duration
	}{
		{"no toleration", []corev1.Taint{notReady}, nil, 0},
		{"one of two taints untolerated", []corev1.Taint{notReady, other}, []corev1.Toleration{exists(notReady.Key, nil)}, 0},
		{"unlimited", []corev1.Taint{notReady}, []corev1.Toleration{exists(notReady.Key, nil)}, never},
		{"300s from timeAdded", []corev1.Taint{notReady}, []corev1.Toleration{exists(notReady.Key, ptr.To[int64](300))}, 200 * time.Second},
		{"expired", []corev1.Taint{notReady}, []corev1.Toleration{exists(notReady.Key, ptr.To[int64](60))}, 0},
		{"zero seconds", []corev1.Taint{notReady}, []corev1.Toleration{exists(notReady.Key, ptr.To[int64](0))}, 0},
		{"negative seconds", []corev1.Taint{notReady}, []corev1.Toleration{exists(notReady.Key, ptr.To[int64](-5))}, 0},
		{"first matching toleration counts", []corev1.Taint{notReady},
			[]corev1.Toleration{exists(notReady.Key, nil), exists(notReady.Key, ptr.To[int64](1))}, never},
		{"minimum over taints", []corev1.Taint{notReady, other},
			[]corev1.Toleration{exists(notReady.Key, ptr.To[int64](400)), {Key: "other", Operator: corev1.TolerationOpEqual, Value: "v", TolerationSeconds: ptr.To[int64](150)}}, 50 * time.Second},
		{"Equal with another value does not tolerate", []corev1.Taint{other},
			[]corev1.Toleration{{Key: "other", Operator: corev1.TolerationOpEqual, Value: "w"}}, 0},
		{"Gt and Lt tolerate nothing (disabled, as in Karmada)", []corev1.Taint{{Key: "level", Value: "5", Effect: corev1.TaintEffectNoExecute}},
			[]corev1.Toleration{{Key: "level", Operator: corev1.TolerationOpGt, Value: "1"}, {Key: "level", Operator: corev1.TolerationOpLt, Value: "9"}}, 0},
		{"empty key Exists tolerates all", []corev1.Taint{notReady, other}, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, never},
		{"taint without timeAdded sets no deadline", []corev1.Taint{unstamped}, []corev1.Toleration{exists(notReady.Key, ptr.To[int64](1))}, never},
		{"NoSchedule toleration does not tolerate NoExecute", []corev1.Taint{notReady},
			[]corev1.Toleration{{Key: notReady.Key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, 0},
	} {
		if got := evictionDelay(tc.taints, tc.tolerations, now); got != tc.want {
			t.Errorf("%s: delay %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTolerationsOf(t *testing.T) {
	b := &workv1alpha2.ResourceBinding{}
	b.Spec.Placement = &policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{Key: "spec"}}}
	if got := tolerationsOf(b); len(got) != 1 || got[0].Key != "spec" {
		t.Errorf("without the annotation: %v, want spec.placement's", got)
	}
	b.Annotations = map[string]string{names.AppliedPlacementAnnotation: `{"clusterTolerations":[{"key":"applied"}]}`}
	if got := tolerationsOf(b); len(got) != 1 || got[0].Key != "applied" {
		t.Errorf("with the annotation: %v, want the applied placement's", got)
	}
	b.Annotations[names.AppliedPlacementAnnotation] = `{not json`
	if got := tolerationsOf(b); len(got) != 1 || got[0].Key != "spec" {
		t.Errorf("with a broken annotation: %v, want spec.placement's", got)
	}
}
