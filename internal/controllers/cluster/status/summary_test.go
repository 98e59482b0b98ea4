package status

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func node(name string, ready bool, kv ...string) *membercluster.NodeRecord {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return membercluster.NodeRecordOf(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{
		Allocatable: list(kv...),
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue}, {Type: corev1.NodeReady, Status: status}},
	}})
}

func pod(nodeName string, phase corev1.PodPhase, containers, inits []corev1.ResourceList, overhead corev1.ResourceList) *membercluster.PodRecord {
	p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: nodeName, Overhead: overhead}, Status: corev1.PodStatus{Phase: phase}}
	for _, r := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Resources: corev1.ResourceRequirements{Requests: r}})
	}
	for _, r := range inits {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Resources: corev1.ResourceRequirements{Requests: r}})
	}
	return membercluster.PodRecordOf(p)
}

func TestPodRequestsContainersVersusInitPlusOverhead(t *testing.T) {
	p := pod("", "", []corev1.ResourceList{list("cpu", "100m", "memory", "64Mi"), list("cpu", "200m", "nvidia.com/gpu", "1")},
		[]corev1.ResourceList{list("cpu", "500m", "memory", "32Mi"), list("cpu", "50m", "memory", "128Mi")},
		list("cpu", "10m", "memory", "1Mi"))
	req := amounts{}
	p.Requests().AddTo(req)
	got := req.resourceList()
	// cpu: max(300m, 500m)+10m; memory: max(64Mi, 128Mi)+1Mi; gpu: 1.
	want := list("cpu", "510m", "memory", "129Mi", "nvidia.com/gpu", "1", "ephemeral-storage", "0", "pods", "0")
	if !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("requests %v, want %v", got, want)
	}
}

func TestSummarize(t *testing.T) {
	nodes := []*membercluster.NodeRecord{
		node("n1", true, "cpu", "8", "memory", "32Gi", "pods", "110", "hugepages-2Mi", "1Gi"),
		node("n2", false, "cpu", "3500m", "memory", "8Gi", "pods", "10"),
	}
	pods := []*membercluster.PodRecord{
		pod("n1", corev1.PodRunning, []corev1.ResourceList{list("cpu", "1", "memory", "1Gi")}, nil, nil),
		pod("n2", corev1.PodPending, []corev1.ResourceList{list("cpu", "500m")}, nil, nil),
		pod("n1", corev1.PodSucceeded, []corev1.ResourceList{list("cpu", "4")}, nil, nil),
		pod("n2", corev1.PodFailed, []corev1.ResourceList{list("cpu", "4")}, nil, nil),
		pod("", corev1.PodPending, []corev1.ResourceList{list("cpu", "2", "memory", "2Gi")}, nil, nil),
		pod("", corev1.PodPending, nil, nil, nil),
	}
	s := summarize(nodes, pods, nil)
	if s.nodes.TotalNum != 2 || s.nodes.ReadyNum != 1 {
		t.Errorf("nodeSummary %+v, want 2 total, 1 ready", s.nodes)
	}
	r := s.resources
	checks := []struct {
		name      string
		got, want corev1.ResourceList
	}{
		{"allocatable", r.Allocatable, list("cpu", "11500m", "memory", "40Gi", "pods", "120", "hugepages-2Mi", "1Gi")},
		{"allocated", r.Allocated, list("cpu", "1500m", "memory", "1Gi", "ephemeral-storage", "0", "pods", "2")},
		{"allocating", r.Allocating, list("cpu", "2", "memory", "2Gi", "ephemeral-storage", "0", "pods", "2")},
	}
	for _, c := range checks {
		if !equality.Semantic.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if r.AllocatableModelings != nil {
		t.Errorf("no models, got modelings %v", r.AllocatableModelings)
	}
}

func TestResourceListFormats(t *testing.T) {
	got := amounts{corev1.ResourceCPU: 1500, corev1.ResourceMemory: 1 << 30, "hugepages-1Gi": 1 << 30, "example.com/foo": 3}.resourceList()
	for name, want := range map[corev1.ResourceName]string{"cpu": "1500m", "memory": "1Gi", "hugepages-1Gi": "1Gi", "example.com/foo": "3", "pods": "0"} {
		q := got[name]
		if q.String() != want {
			t.Errorf("%s = %s, want %s", name, q.String(), want)
		}
	}
}

func model(grade uint, kv ...string) clusterv1alpha1.ResourceModel {
	m := clusterv1alpha1.ResourceModel{Grade: grade}
	for i := 0; i < len(kv); i += 3 {
		m.Ranges = append(m.Ranges, clusterv1alpha1.ResourceModelRange{Name: clusterv1alpha1.ResourceName(kv[i]),
			Min: resource.MustParse(kv[i+1]), Max: resource.MustParse(kv[i+2])})
	}
	return m
}

func TestAllocatableModelings(t *testing.T) {
	models := []clusterv1alpha1.ResourceModel{
		model(0, "cpu", "0", "1", "memory", "0", "4Gi"),
		model(1, "cpu", "1", "2", "memory", "4Gi", "16Gi"),
		model(2, "cpu", "2", "100", "memory", "16Gi", "1Ti"),
	}
	nodes := []*membercluster.NodeRecord{
		node("big", true, "cpu", "8", "memory", "32Gi", "pods", "110"),     // grade 2
		node("used", true, "cpu", "8", "memory", "32Gi", "pods", "110"),    // 7 cpu used: grade 0 by cpu
		node("cpu-rich", true, "cpu", "4", "memory", "6Gi", "pods", "110"), // grade 1 by memory
		node("full", true, "cpu", "64", "memory", "256Gi", "pods", "1"),    // no free pod slot: not counted
		node("after-full", true, "cpu", "64", "memory", "256Gi", "pods", "110"),
		node("tiny", true, "cpu", "500m", "memory", "1Gi", "pods", "110"), // grade 0
	}
	pods := []*membercluster.PodRecord{
		pod("used", corev1.PodRunning, []corev1.ResourceList{list("cpu", "7500m")}, nil, nil),
		pod("full", corev1.PodRunning, []corev1.ResourceList{list("cpu", "1")}, nil, nil),
		pod("big", corev1.PodSucceeded, []corev1.ResourceList{list("cpu", "8")}, nil, nil), // terminal: frees its share
	}
	got := summarize(nodes, pods, models).resources.AllocatableModelings
	want := []clusterv1alpha1.AllocatableModeling{{Grade: 0, Count: 2}, {Grade: 1, Count: 1}, {Grade: 2, Count: 2}}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("modelings %+v, want %+v", got, want)
	}
}

// The node that has no free pod slot is skipped wherever it is listed:
// Karmada stops the scan at it instead, so its result depends on the
// informer's list order and would flap between cycles.
func TestModelingsIndependentOfNodeOrder(t *testing.T) {
	models := modelsOf(&clusterv1alpha1.Cluster{})
	full := node("full", true, "cpu", "8", "memory", "32Gi", "pods", "1")
	other := node("other", true, "cpu", "8", "memory", "32Gi", "pods", "110")
	pods := []*membercluster.PodRecord{pod("full", corev1.PodRunning, nil, nil, nil)}
	a := summarize([]*membercluster.NodeRecord{full, other}, pods, models).resources.AllocatableModelings
	b := summarize([]*membercluster.NodeRecord{other, full}, pods, models).resources.AllocatableModelings
	if !equality.Semantic.DeepEqual(a, b) || a[3].Count != 1 {
		t.Fatalf("order-dependent or wrong modelings: %+v vs %+v", a, b)
	}
}

func TestDefaultModels(t *testing.T) {
	m := modelsOf(&clusterv1alpha1.Cluster{})
	if len(m) != 9 {
		t.Fatalf("%d default grades", len(m))
	}
	for k, want := range map[int][4]string{0: {"0", "1", "0", "4Gi"}, 1: {"1", "2", "4Gi", "16Gi"}, 2: {"2", "4", "16Gi", "32Gi"}, 7: {"64", "128", "512Gi", "1Ti"}} {
		r := m[k].Ranges
		if r[0].Min.Cmp(resource.MustParse(want[0])) != 0 || r[0].Max.Cmp(resource.MustParse(want[1])) != 0 ||
			r[1].Min.Cmp(resource.MustParse(want[2])) != 0 || r[1].Max.Cmp(resource.MustParse(want[3])) != 0 {
			t.Errorf("grade %d: %v", k, r)
		}
	}
	if m[8].Ranges[0].Min.Cmp(resource.MustParse("128")) != 0 || m[8].Ranges[1].Min.Cmp(resource.MustParse("1Ti")) != 0 {
		t.Errorf("grade 8: %v", m[8].Ranges)
	}
	// An 8-CPU 32Gi node is grade 3: cpu grade 4 [8,16), memory grade 3 [32Gi,64Gi).
	got := summarize([]*membercluster.NodeRecord{node("n", true, "cpu", "8", "memory", "32Gi", "pods", "110")}, nil, m).resources.AllocatableModelings
	if got[3].Count != 1 || got[3].Grade != 3 {
		t.Fatalf("modelings %+v", got)
	}
}
