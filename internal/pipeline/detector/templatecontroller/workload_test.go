package templatecontroller

import (
	"context"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/pkg/apis"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// workloadInterpreter answers replicas (3, requirements without a
// namespace) and components (a launcher and two workers) for every kind.
type workloadInterpreter struct{ componentHook bool }

func (w workloadInterpreter) HookEnabled(_ schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool {
	return op == configv1alpha1.InterpreterOperationInterpretReplica ||
		(w.componentHook && op == configv1alpha1.InterpreterOperationInterpretComponent)
}

func (workloadInterpreter) GetReplicas(context.Context, *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	return 3, &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}, nil
}

func (workloadInterpreter) GetComponents(context.Context, *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	return []workv1alpha2.Component{{Name: "launcher", Replicas: 1}, {Name: "worker", Replicas: 2}}, nil
}

func TestDesiredSpecWorkloadAndPriority(t *testing.T) {
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	job := &unstructured.Unstructured{}
	job.SetAPIVersion("training.example.io/v1")
	job.SetKind("TrainingJob")
	job.SetNamespace("ml")
	job.SetName("resnet")
	priority := &policyv1alpha1.SchedulePriority{PriorityClassSource: policyv1alpha1.KubePriorityClass, PriorityClassName: "high"}
	cases := []struct {
		name          string
		opts          Options
		componentHook bool
		sp            *policyv1alpha1.SchedulePriority
		check         func(t *testing.T, spec *workv1alpha2.ResourceBindingSpec, err error)
	}{{
		name: "gates off: replicas, no priority, no namespace",
		sp:   priority, componentHook: true,
		check: func(t *testing.T, spec *workv1alpha2.ResourceBindingSpec, err error) {
			if err != nil || spec.Replicas != 3 || spec.Components != nil || spec.SchedulePriority != nil || spec.ReplicaRequirements.Namespace != "" {
				t.Errorf("spec %+v, err %v", spec, err)
			}
		},
	}, {
		name: "PriorityBasedScheduling resolves the PriorityClass",
		opts: Options{PriorityBasedScheduling: true}, sp: priority,
		check: func(t *testing.T, spec *workv1alpha2.ResourceBindingSpec, err error) {
			if err != nil || spec.SchedulePriority == nil || spec.SchedulePriority.Priority != 1000 {
				t.Errorf("schedulePriority %+v, err %v; want 1000", spec.SchedulePriority, err)
			}
		},
	}, {
		name: "a missing PriorityClass is an error naming it",
		opts: Options{PriorityBasedScheduling: true},
		sp:   &policyv1alpha1.SchedulePriority{PriorityClassSource: policyv1alpha1.KubePriorityClass, PriorityClassName: "absent"},
		check: func(t *testing.T, _ *workv1alpha2.ResourceBindingSpec, err error) {
			if err == nil || !strings.Contains(err.Error(), "PriorityClass absent") {
				t.Errorf("err %v, want one naming PriorityClass absent", err)
			}
		},
	}, {
		name: "MultiplePodTemplatesScheduling takes components instead of replicas",
		opts: Options{MultiplePodTemplatesScheduling: true}, componentHook: true,
		check: func(t *testing.T, spec *workv1alpha2.ResourceBindingSpec, err error) {
			if err != nil || len(spec.Components) != 2 || spec.Replicas != 0 || spec.ReplicaRequirements != nil {
				t.Errorf("spec %+v, err %v; want two components and no replicas", spec, err)
			}
		},
	}, {
		name: "MultiplePodTemplatesScheduling without a component hook keeps replicas",
		opts: Options{MultiplePodTemplatesScheduling: true},
		check: func(t *testing.T, spec *workv1alpha2.ResourceBindingSpec, err error) {
			if err != nil || spec.Components != nil || spec.Replicas != 3 {
				t.Errorf("spec %+v, err %v; want replicas", spec, err)
			}
		},
	}, {
		name: "ResourceQuotaEstimate names the namespace in the requirements",
		opts: Options{ResourceQuotaEstimate: true},
		check: func(t *testing.T, spec *workv1alpha2.ResourceBindingSpec, err error) {
			if err != nil || spec.ReplicaRequirements == nil || spec.ReplicaRequirements.Namespace != "ml" {
				t.Errorf("requirements %+v, err %v; want namespace ml", spec.ReplicaRequirements, err)
			}
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(high.DeepCopy()).Build()
			r := New(Deps{Client: cl, Interpreter: workloadInterpreter{componentHook: c.componentHook}}, c.opts)
			p := &policyindex.Policy{Spec: &policyv1alpha1.PropagationSpec{SchedulePriority: c.sp}}
			spec, err := r.desiredSpec(context.Background(), job.DeepCopy(), p)
			c.check(t, spec, err)
		})
	}
}

// The detector owns schedulePriority of ResourceBindings only: a
// ClusterResourceBinding keeps what it has.
func TestMergeSpecSchedulePriorityRBOnly(t *testing.T) {
	desired := &workv1alpha2.ResourceBindingSpec{SchedulePriority: &workv1alpha2.SchedulePriority{Priority: 5}}
	rb := &workv1alpha2.ResourceBindingSpec{}
	mergeSpec(rb, desired, true)
	if rb.SchedulePriority == nil || rb.SchedulePriority.Priority != 5 {
		t.Errorf("ResourceBinding schedulePriority %+v, want 5", rb.SchedulePriority)
	}
	crb := &workv1alpha2.ResourceBindingSpec{SchedulePriority: &workv1alpha2.SchedulePriority{Priority: 9}}
	mergeSpec(crb, &workv1alpha2.ResourceBindingSpec{}, false)
	if crb.SchedulePriority == nil || crb.SchedulePriority.Priority != 9 {
		t.Errorf("ClusterResourceBinding schedulePriority %+v, want its own 9 kept", crb.SchedulePriority)
	}
}

// Under WorkloadAffinity the ResourceBinding names "<key>=<value>" for
// each term whose label key the template carries; nil when neither does,
// when the gate is off, and for cluster-scoped templates.
func TestDesiredSpecWorkloadAffinityGroups(t *testing.T) {
	both := &policyv1alpha1.WorkloadAffinity{
		Affinity:     &policyv1alpha1.WorkloadAffinityTerm{GroupByLabelKey: "app.io/train"},
		AntiAffinity: &policyv1alpha1.WorkloadAntiAffinityTerm{GroupByLabelKey: "app.io/ha"},
	}
	cases := []struct {
		name      string
		gate      bool
		namespace string
		labels    map[string]string
		wa        *policyv1alpha1.WorkloadAffinity
		want      *workv1alpha2.WorkloadAffinityGroups
	}{
		{name: "gate off", namespace: "ml", labels: map[string]string{"app.io/train": "a", "app.io/ha": "b"}, wa: both},
		{name: "both terms apply", gate: true, namespace: "ml", labels: map[string]string{"app.io/train": "a", "app.io/ha": "b"}, wa: both,
			want: &workv1alpha2.WorkloadAffinityGroups{AffinityGroup: "app.io/train=a", AntiAffinityGroup: "app.io/ha=b"}},
		{name: "an empty label value still names a group", gate: true, namespace: "ml", labels: map[string]string{"app.io/ha": ""}, wa: both,
			want: &workv1alpha2.WorkloadAffinityGroups{AntiAffinityGroup: "app.io/ha="}},
		{name: "no term's key is a label", gate: true, namespace: "ml", labels: map[string]string{"other": "x"}, wa: both},
		{name: "no workloadAffinity", gate: true, namespace: "ml", labels: map[string]string{"app.io/train": "a"}},
		{name: "cluster-scoped template", gate: true, labels: map[string]string{"app.io/train": "a"}, wa: both},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			obj.SetAPIVersion("apps/v1")
			obj.SetKind("Deployment")
			obj.SetNamespace(c.namespace)
			obj.SetName("web")
			obj.SetLabels(c.labels)
			cl := fake.NewClientBuilder().WithScheme(apis.Scheme).Build()
			r := New(Deps{Client: cl, Interpreter: workloadInterpreter{}}, Options{WorkloadAffinity: c.gate})
			p := &policyindex.Policy{Spec: &policyv1alpha1.PropagationSpec{Placement: policyv1alpha1.Placement{WorkloadAffinity: c.wa}}}
			spec, err := r.desiredSpec(context.Background(), obj, p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(spec.WorkloadAffinityGroups, c.want) {
				t.Errorf("workloadAffinityGroups %+v, want %+v", spec.WorkloadAffinityGroups, c.want)
			}
		})
	}
}

// A binding update replaces the ResourceBinding's groups (a template that
// lost its label leaves its group); a ClusterResourceBinding keeps its own.
func TestMergeSpecWorkloadAffinityGroupsRBOnly(t *testing.T) {
	rb := &workv1alpha2.ResourceBindingSpec{WorkloadAffinityGroups: &workv1alpha2.WorkloadAffinityGroups{AffinityGroup: "k=old"}}
	mergeSpec(rb, &workv1alpha2.ResourceBindingSpec{}, true)
	if rb.WorkloadAffinityGroups != nil {
		t.Errorf("ResourceBinding groups %+v, want them replaced by none", rb.WorkloadAffinityGroups)
	}
	crb := &workv1alpha2.ResourceBindingSpec{WorkloadAffinityGroups: &workv1alpha2.WorkloadAffinityGroups{AffinityGroup: "k=own"}}
	mergeSpec(crb, &workv1alpha2.ResourceBindingSpec{WorkloadAffinityGroups: &workv1alpha2.WorkloadAffinityGroups{AffinityGroup: "k=new"}}, false)
	if crb.WorkloadAffinityGroups == nil || crb.WorkloadAffinityGroups.AffinityGroup != "k=own" {
		t.Errorf("ClusterResourceBinding groups %+v, want its own kept", crb.WorkloadAffinityGroups)
	}
}
