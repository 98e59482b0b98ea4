package status

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func quotaWork(namespace string, applied bool, status string) workv1alpha1.Work {
	w := workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "team-quota-cd9c774d"}}
	cond := metav1.ConditionFalse
	if applied {
		cond = metav1.ConditionTrue
	}
	w.Status.Conditions = []metav1.Condition{{Type: workv1alpha1.WorkApplied, Status: cond}}
	if status != "" {
		w.Status.ManifestStatuses = []workv1alpha1.ManifestStatus{{Status: &runtime.RawExtension{Raw: []byte(status)}}}
	}
	return w
}

func TestClusterStatusesSortsAndSkipsUnapplied(t *testing.T) {
	works := []workv1alpha1.Work{
		quotaWork("karmada-es-member2", true, `{"hard":{"cpu":"6"},"used":{"cpu":"1500m"}}`),
		quotaWork("karmada-es-member3", false, `{"hard":{"cpu":"1"},"used":{"cpu":"1"}}`),
		quotaWork("karmada-es-member4", true, ""),
		quotaWork("karmada-es-member1", true, `{"hard":{"cpu":"4"},"used":{"cpu":"500m","pods":"1"}}`),
	}
	got, err := ClusterStatuses(works)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ClusterName != "member1" || got[1].ClusterName != "member2" {
		t.Fatalf("entries %+v, want member1 and member2 in order", got)
	}
	sum := SumUsed(got)
	if cpu := sum[corev1.ResourceCPU]; cpu.Cmp(resource.MustParse("2")) != 0 {
		t.Errorf("overall cpu %s, want 2", cpu.String())
	}
	if pods := sum[corev1.ResourcePods]; pods.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("overall pods %s, want 1 (every key is summed)", pods.String())
	}
	if SumUsed(nil) != nil {
		t.Error("no entries must give no overallUsed")
	}
}

func TestClusterStatusesErrorsNameTheWork(t *testing.T) {
	for _, tc := range []struct{ ns, status, want string }{
		{"default", `{"hard":{}}`, "karmada-es-"},
		{"karmada-es-member1", `{"hard":"not a list"}`, "not a ResourceQuotaStatus"},
	} {
		_, err := ClusterStatuses([]workv1alpha1.Work{quotaWork(tc.ns, true, tc.status)})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "team-quota-cd9c774d") {
			t.Errorf("namespace %s status %s: error %v, want one naming the Work and %q", tc.ns, tc.status, err, tc.want)
		}
	}
}
