package taintpolicy

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

var (
	notReadyNoExecute = policyv1alpha1.Taint{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoExecute}
	readyNotTrue      = []policyv1alpha1.MatchCondition{{ConditionType: "Ready", Operator: policyv1alpha1.MatchConditionOpNotIn, StatusValues: []metav1.ConditionStatus{"True"}}}
	readyTrue         = []policyv1alpha1.MatchCondition{{ConditionType: "Ready", Operator: policyv1alpha1.MatchConditionOpIn, StatusValues: []metav1.ConditionStatus{"True"}}}
)

func failoverPolicy(name string, created time.Time) policyv1alpha1.ClusterTaintPolicy {
	return policyv1alpha1.ClusterTaintPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)},
		Spec: policyv1alpha1.ClusterTaintPolicySpec{
			AddOnConditions: readyNotTrue, RemoveOnConditions: readyTrue, Taints: []policyv1alpha1.Taint{notReadyNoExecute},
		},
	}
}

func clusterWithReady(status metav1.ConditionStatus, taints ...corev1.Taint) *clusterv1alpha1.Cluster {
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1", Labels: map[string]string{"env": "prod"}}}
	c.Spec.Taints = taints
	if status != "" {
		c.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: status}}
	}
	return c
}

func TestDesiredTaintsAddsAndRemoves(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	policies := []policyv1alpha1.ClusterTaintPolicy{failoverPolicy("p", now)}
	noSchedule := corev1.Taint{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoSchedule}

	out, changed := desiredTaints(clusterWithReady("False", noSchedule), policies, now)
	if !changed || len(out) != 2 || out[0] != noSchedule || out[1].Effect != corev1.TaintEffectNoExecute || !out[1].TimeAdded.Time.Equal(now) {
		t.Fatalf("Ready=False: got %v (changed %v), want the NoSchedule taint kept and a stamped NoExecute one", out, changed)
	}
	// Evaluating again changes nothing (the taint is there).
	c := clusterWithReady("False", out...)
	if _, changed := desiredTaints(c, policies, now.Add(time.Minute)); changed {
		t.Error("second evaluation changed the taints")
	}
	// An existing taint with the same key and effect is not updated even if
	// its value differs.
	c = clusterWithReady("Unknown", corev1.Taint{Key: notReadyNoExecute.Key, Value: "x", Effect: corev1.TaintEffectNoExecute})
	if _, changed := desiredTaints(c, policies, now); changed {
		t.Error("a taint differing only in value was rewritten")
	}
	// Ready=True removes it (by key and effect, whatever its value), and
	// leaves the NoSchedule taint to the cluster controller.
	c = clusterWithReady("True", noSchedule, corev1.Taint{Key: notReadyNoExecute.Key, Value: "x", Effect: corev1.TaintEffectNoExecute})
	out, changed = desiredTaints(c, policies, now)
	if !changed || len(out) != 1 || out[0] != noSchedule {
		t.Errorf("Ready=True: got %v (changed %v), want only the NoSchedule taint", out, changed)
	}
	// The cluster itself is not modified.
	if len(c.Spec.Taints) != 2 {
		t.Error("desiredTaints modified the cluster")
	}
}

func TestDesiredTaintsMissingConditionMatchesNothing(t *testing.T) {
	// NotIn [True] with no Ready condition at all: no match (Karmada).
	if out, changed := desiredTaints(clusterWithReady(""), []policyv1alpha1.ClusterTaintPolicy{failoverPolicy("p", time.Now())}, time.Now()); changed {
		t.Errorf("a cluster without conditions was tainted: %v", out)
	}
}

func TestDesiredTaintsTargetClusters(t *testing.T) {
	p := failoverPolicy("p", time.Now())
	p.Spec.TargetClusters = &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}
	if _, changed := desiredTaints(clusterWithReady("False"), []policyv1alpha1.ClusterTaintPolicy{p}, time.Now()); changed {
		t.Error("a policy targeting member2 tainted member1")
	}
	p.Spec.TargetClusters = &policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
	if _, changed := desiredTaints(clusterWithReady("False"), []policyv1alpha1.ClusterTaintPolicy{p}, time.Now()); !changed {
		t.Error("a policy selecting env=prod did not taint member1")
	}
	p.Spec.TargetClusters.ExcludeClusters = []string{"member1"}
	if _, changed := desiredTaints(clusterWithReady("False"), []policyv1alpha1.ClusterTaintPolicy{p}, time.Now()); changed {
		t.Error("an excluded cluster was tainted")
	}
}

func TestDesiredTaintsPolicyOrder(t *testing.T) {
	// The older policy adds a taint on Ready=False; the newer one removes
	// the same key and effect on Ready=False: evaluated oldest first, the
	// taint is added then removed, so nothing changes overall... except
	// the change flag, which Karmada computes from the final list too.
	now := time.Now()
	adder := failoverPolicy("adder", now)
	remover := failoverPolicy("remover", now.Add(time.Second))
	remover.Spec.AddOnConditions = nil
	remover.Spec.RemoveOnConditions = readyNotTrue
	policies := []policyv1alpha1.ClusterTaintPolicy{remover, adder}
	sortOldestFirst(policies)
	if policies[0].Name != "adder" {
		t.Fatalf("sort: %s first", policies[0].Name)
	}
	out, _ := desiredTaints(clusterWithReady("False"), policies, now)
	if len(out) != 0 {
		t.Errorf("oldest-first evaluation left %v", out)
	}
	// Reversed ages: the remover runs first (nothing to remove), then the
	// adder adds.
	adder.CreationTimestamp, remover.CreationTimestamp = remover.CreationTimestamp, adder.CreationTimestamp
	policies = []policyv1alpha1.ClusterTaintPolicy{adder, remover}
	sortOldestFirst(policies)
	if out, _ := desiredTaints(clusterWithReady("False"), policies, now); len(out) != 1 {
		t.Errorf("remover-first evaluation left %v, want the taint", out)
	}
}

func TestConditionsMatch(t *testing.T) {
	conds := []metav1.Condition{{Type: "Ready", Status: "False"}, {Type: "Other", Status: "True"}}
	for _, tc := range []struct {
		name    string
		matches []policyv1alpha1.MatchCondition
		want    bool
	}{
		{"empty never matches", nil, false},
		{"NotIn", readyNotTrue, true},
		{"In", readyTrue, false},
		{"AND of two", append(append([]policyv1alpha1.MatchCondition{}, readyNotTrue...),
			policyv1alpha1.MatchCondition{ConditionType: "Other", Operator: "In", StatusValues: []metav1.ConditionStatus{"True"}}), true},
		{"AND with a failing entry", append(append([]policyv1alpha1.MatchCondition{}, readyNotTrue...), readyTrue...), false},
		{"missing type with NotIn", []policyv1alpha1.MatchCondition{{ConditionType: "Absent", Operator: "NotIn", StatusValues: []metav1.ConditionStatus{"True"}}}, false},
		{"unknown operator", []policyv1alpha1.MatchCondition{{ConditionType: "Ready", Operator: "Exists", StatusValues: []metav1.ConditionStatus{"False"}}}, false},
	} {
		if got := conditionsMatch(conds, tc.matches); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
