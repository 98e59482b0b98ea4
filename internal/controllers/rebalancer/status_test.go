package rebalancer

import (
	"fmt"
	"testing"

	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
)

func TestObservedWorkloads(t *testing.T) {
	ref := func(name string) appsv1alpha1.ObjectReference {
		return appsv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: name}
	}
	previous := []appsv1alpha1.ObservedWorkload{
		{Workload: ref("kept"), Result: appsv1alpha1.RebalanceFailed, Reason: appsv1alpha1.RebalanceObjectNotFound},
		{Workload: ref("gone-ok"), Result: appsv1alpha1.RebalanceSuccessful},
		{Workload: ref("gone-failed"), Result: appsv1alpha1.RebalanceFailed, Reason: appsv1alpha1.RebalanceObjectNotFound},
		{Workload: ref("gone-pending")},
	}
	spec := []appsv1alpha1.ObjectReference{ref("new"), ref("kept"), ref("new"),
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "reader"}}
	got := observedWorkloads(spec, previous)
	var out []string
	for _, o := range got {
		out = append(out, fmt.Sprintf("%s/%s=%s%s", o.Workload.Kind, o.Workload.Name, o.Result, o.Reason))
	}
	want := "[Deployment/gone-ok=Successful Deployment/kept=FailedReferencedBindingNotFound Deployment/new= ClusterRole/reader=]"
	if fmt.Sprint(out) != want {
		t.Errorf("got %v\nwant %s", out, want)
	}
}
