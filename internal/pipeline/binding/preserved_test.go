package binding

import (
	"context"
	"strings"
	"testing"

	"github.com/propel-mc/propel/internal/pipeline/binding/overrides"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// TestPreservedLabelsInjection renders the worked example after member2
// was evicted and checks Karmada's injection conditions: one target, the
// last task Directly, the target not among the clusters before failover.
func TestPreservedLabelsInjection(t *testing.T) {
	task := func(mode policyv1alpha1.PurgeMode, before ...string) workv1alpha2.GracefulEvictionTask {
		return workv1alpha2.GracefulEvictionTask{
			FromCluster: "member2", PurgeMode: mode, Reason: workv1alpha2.EvictionReasonApplicationFailure, Producer: "p",
			PreservedLabelState: map[string]string{"failover.example.com/replicas": "6"}, ClustersBeforeFailover: before,
		}
	}
	cases := []struct {
		name     string
		clusters []workv1alpha2.TargetCluster
		tasks    []workv1alpha2.GracefulEvictionTask
		gate     bool
		want     bool
	}{
		{"directly to a new cluster", []workv1alpha2.TargetCluster{{Name: "member3", Replicas: 9}}, []workv1alpha2.GracefulEvictionTask{task(policyv1alpha1.PurgeModeDirectly, "member1", "member2")}, true, true},
		{"taint manager task (no clusters before)", []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 9}}, []workv1alpha2.GracefulEvictionTask{task(policyv1alpha1.PurgeModeDirectly)}, true, true},
		{"gate off", []workv1alpha2.TargetCluster{{Name: "member3", Replicas: 9}}, []workv1alpha2.GracefulEvictionTask{task(policyv1alpha1.PurgeModeDirectly)}, false, false},
		{"gracefully", []workv1alpha2.TargetCluster{{Name: "member3", Replicas: 9}}, []workv1alpha2.GracefulEvictionTask{task(policyv1alpha1.PurgeModeGracefully)}, true, false},
		{"never", []workv1alpha2.TargetCluster{{Name: "member3", Replicas: 9}}, []workv1alpha2.GracefulEvictionTask{task(policyv1alpha1.PurgeModeNever)}, true, false},
		{"only the last task counts", []workv1alpha2.TargetCluster{{Name: "member3", Replicas: 9}}, []workv1alpha2.GracefulEvictionTask{task(policyv1alpha1.PurgeModeDirectly), task(policyv1alpha1.PurgeModeGracefully)}, true, false},
		{"target ran there before", []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 9}}, []workv1alpha2.GracefulEvictionTask{task(policyv1alpha1.PurgeModeDirectly, "member1", "member2")}, true, false},
		{"two targets", []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 3}, {Name: "member3", Replicas: 6}}, []workv1alpha2.GracefulEvictionTask{task(policyv1alpha1.PurgeModeDirectly)}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rb := exampleBinding()
			rb.Spec.Clusters, rb.Spec.GracefulEvictionTasks = tc.clusters, tc.tasks
			b := rbKind.wrap(rb)
			targets := b.targets()
			rd, err := newRenderer(newInterpreter(), b, exampleTemplate(t), overrides.NewSet(nil, nil), targets)
			if err != nil {
				t.Fatal(err)
			}
			if tc.gate {
				rd.preserved = preservedLabels(b.spec, targets)
			}
			for _, target := range targets {
				d, _, err := rd.render(context.Background(), target, memberCluster(target.Name))
				if err != nil {
					t.Fatal(err)
				}
				w, err := d.NewWork()
				if err != nil {
					t.Fatal(err)
				}
				m := manifestOf(t, w)
				v, ok := m.GetLabels()["failover.example.com/replicas"]
				if ok != tc.want || (ok && v != "6") {
					t.Errorf("%s: injected label %q (present %v), want present %v", target.Name, v, ok, tc.want)
				}
				managed := m.GetAnnotations()[names.ManagedLabelsAnnotation]
				if strings.Contains(managed, "failover.example.com/replicas") != tc.want {
					t.Errorf("%s: managed-labels annotation %q", target.Name, managed)
				}
			}
		})
	}
}
