package scheduler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestComponentSetsIntegration schedules a multi-template job (a launcher
// of 1 CPU and four workers of 2 CPUs: 9 CPUs per set) onto one of two
// clusters on a real API server. sets-a has 8 free CPUs, enough for any
// single pod of the job but not for the whole set; sets-b has 20. The
// general estimator counts component sets, so the job goes to sets-b
// although sets-a comes first; counting single replicas would pick sets-a.
func TestComponentSetsIntegration(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for name, cpus := range map[string]int64{"sets-a": 8, "sets-b": 20} {
		createCapacityCluster(ctx, t, env.Client, name, cpus)
		// The members serve the job's kind.
		c := &clusterv1alpha1.Cluster{}
		if err := env.Client.Get(ctx, types.NamespacedName{Name: name}, c); err != nil {
			t.Fatal(err)
		}
		c.Status.APIEnablements = append(c.Status.APIEnablements, clusterv1alpha1.APIEnablement{
			GroupVersion: "training.example.io/v1", Resources: []clusterv1alpha1.APIResource{{Name: "trainingjobs", Kind: "TrainingJob"}}})
		if err := env.Client.Status().Update(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	mgr, err := ctrl.NewManager(env.ControllerManagerConfig(), ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()

	component := func(name string, replicas int32, cpu string) workv1alpha2.Component {
		return workv1alpha2.Component{Name: name, Replicas: replicas, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{
			ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}
	}
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "resnet-trainingjob",
			Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-training"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:   workv1alpha2.ObjectReference{APIVersion: "training.example.io/v1", Kind: "TrainingJob", Namespace: "default", Name: "resnet", UID: types.UID("uid-resnet")},
			Components: []workv1alpha2.Component{component("launcher", 1, "1"), component("worker", 4, "2")},
			Placement: &policyv1alpha1.Placement{
				ClusterAffinity:   &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"sets-a", "sets-b"}},
				SpreadConstraints: []policyv1alpha1.SpreadConstraint{{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 1, MaxGroups: 1}},
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
					ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceAggregated,
				},
			},
		},
	}
	if err := env.Client.Create(ctx, rb); err != nil {
		t.Fatal(err)
	}
	var got string
	harness.Eventually(t, "resnet-trainingjob scheduled", func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "default", Name: rb.Name}, rb); err != nil {
			return false, err
		}
		got = formatTargets(rb.Spec.Clusters)
		return meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled) != nil, nil
	})
	if c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled); c.Status != metav1.ConditionTrue || got != "sets-b:0" {
		t.Fatalf("the job was scheduled to %q (condition %s: %s), want sets-b, the only cluster holding a whole set", got, c.Reason, c.Message)
	}
}
