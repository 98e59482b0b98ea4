package index

import (
	"context"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func work(labels map[string]string) *workv1alpha1.Work {
	return &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-m1", Name: "w", Labels: labels}}
}

func TestResourceBindingIDOfWork(t *testing.T) {
	if got := ResourceBindingIDOfWork(work(map[string]string{names.ResourceBindingPermanentIDLabel: "rb-id"})); !slices.Equal(got, []string{"rb-id"}) {
		t.Errorf("got %v, want [rb-id]", got)
	}
	// A CRB's Work, an unlabelled Work and an empty value index nothing.
	for _, l := range []map[string]string{{names.ClusterResourceBindingPermanentIDLabel: "crb-id"}, nil, {names.ResourceBindingPermanentIDLabel: ""}} {
		if got := ResourceBindingIDOfWork(work(l)); got != nil {
			t.Errorf("labels %v: got %v, want nothing", l, got)
		}
	}
}

func TestClusterResourceBindingIDOfWork(t *testing.T) {
	if got := ClusterResourceBindingIDOfWork(work(map[string]string{names.ClusterResourceBindingPermanentIDLabel: "crb-id"})); !slices.Equal(got, []string{"crb-id"}) {
		t.Errorf("got %v, want [crb-id]", got)
	}
	for _, l := range []map[string]string{{names.ResourceBindingPermanentIDLabel: "rb-id"}, nil} {
		if got := ClusterResourceBindingIDOfWork(work(l)); got != nil {
			t.Errorf("labels %v: got %v, want nothing", l, got)
		}
	}
}

func TestTargetClustersOfBinding(t *testing.T) {
	targets := []workv1alpha2.TargetCluster{{Name: "m1", Replicas: 1}, {Name: "m2"}}
	rb := &workv1alpha2.ResourceBinding{Spec: workv1alpha2.ResourceBindingSpec{Clusters: targets}}
	crb := &workv1alpha2.ClusterResourceBinding{Spec: workv1alpha2.ResourceBindingSpec{Clusters: targets[:1]}}
	if got := TargetClustersOfBinding(rb); !slices.Equal(got, []string{"m1", "m2"}) {
		t.Errorf("ResourceBinding: got %v", got)
	}
	if got := TargetClustersOfBinding(crb); !slices.Equal(got, []string{"m1"}) {
		t.Errorf("ClusterResourceBinding: got %v", got)
	}
	if got := TargetClustersOfBinding(&workv1alpha2.ResourceBinding{}); len(got) != 0 {
		t.Errorf("unscheduled binding: got %v", got)
	}
	if got := TargetClustersOfBinding(work(nil)); got != nil {
		t.Errorf("a Work: got %v", got)
	}
}

func TestWorksOf(t *testing.T) {
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Labels: map[string]string{names.ResourceBindingPermanentIDLabel: "rb-id"}}}
	crb := &workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{names.ClusterResourceBindingPermanentIDLabel: "crb-id"}}}
	if got := WorksOf(rb); len(got) != 1 || got[WorkByResourceBindingID] != "rb-id" {
		t.Errorf("ResourceBinding: %v", got)
	}
	if got := WorksOf(crb); len(got) != 1 || got[WorkByClusterResourceBindingID] != "crb-id" {
		t.Errorf("ClusterResourceBinding: %v", got)
	}
}

// recordingIndexer records registrations and rejects a name registered
// twice for one type, as the manager's cache does.
type recordingIndexer map[string]client.IndexerFunc

func (r recordingIndexer) IndexField(_ context.Context, obj client.Object, field string, fn client.IndexerFunc) error {
	k := fmt.Sprintf("%T/%s", obj, field)
	if _, dup := r[k]; dup {
		return fmt.Errorf("index %s registered twice", k)
	}
	r[k] = fn
	return nil
}

func TestAddRegistersEachIndexOnce(t *testing.T) {
	r := recordingIndexer{}
	if err := Add(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"*v1alpha1.Work/" + WorkByResourceBindingID,
		"*v1alpha1.Work/" + WorkByClusterResourceBindingID,
		"*v1alpha2.ResourceBinding/" + BindingByTargetCluster,
		"*v1alpha2.ClusterResourceBinding/" + BindingByTargetCluster,
	}
	if len(r) != len(want) {
		t.Errorf("registered %d indexes, want %d: %v", len(r), len(want), r)
	}
	for _, k := range want {
		if r[k] == nil {
			t.Errorf("%s not registered", k)
		}
	}
	if err := Add(context.Background(), r); err == nil {
		t.Error("registering twice must fail, not be tolerated")
	}
}
