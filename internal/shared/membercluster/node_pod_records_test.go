package membercluster

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

func resources(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// memberPod is a Pod as a member's API server returns it, with the fields
// a Deployment's pod usually has.
func memberPod(i int) *corev1.Pod {
	now := metav1.NewTime(time.Unix(1700000000, 0))
	ctr := corev1.Container{Name: "app", Image: fmt.Sprintf("registry.example.com/team/app:v1.%d", i%7),
		Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		Env:          []corev1.EnvVar{{Name: "MODE", Value: "production"}, {Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
		Resources:    corev1.ResourceRequirements{Requests: resources("cpu", "100m", "memory", "128Mi"), Limits: resources("cpu", "500m", "memory", "256Mi")},
		VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", i%10), Name: fmt.Sprintf("app-%d-7d9f8c6b5-%05d", i%10, i),
			GenerateName: fmt.Sprintf("app-%d-7d9f8c6b5-", i%10), UID: types.UID(fmt.Sprintf("6f1c2b4e-0000-4000-8000-%012d", i)),
			ResourceVersion: fmt.Sprint(100000 + i), CreationTimestamp: now,
			Labels:          map[string]string{"app": fmt.Sprintf("app-%d", i%10), "pod-template-hash": "7d9f8c6b5"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: fmt.Sprintf("app-%d-7d9f8c6b5", i%10), UID: "rs-uid"}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now}},
		},
		Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%04d", i%1000), Containers: []corev1.Container{ctr}, ServiceAccountName: "default",
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}},
		Status: corev1.PodStatus{Phase: corev1.PodPhase(string([]byte("Running"))), StartTime: &now, PodIP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255),
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodReady, Status: corev1.ConditionStatus(string([]byte("True"))), LastTransitionTime: now},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Image: ctr.Image, ImageID: "sha256:0123456789abcdef", ContainerID: fmt.Sprintf("containerd://%064d", i)}},
		},
	}
}

func memberNode(i int) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%04d", i), UID: types.UID(fmt.Sprintf("node-uid-%d", i)), ResourceVersion: fmt.Sprint(5000 + i),
			Labels: map[string]string{"kubernetes.io/hostname": fmt.Sprintf("node-%04d", i), "kubernetes.io/os": "linux", "topology.kubernetes.io/zone": "zone-a"}},
		Status: corev1.NodeStatus{
			Capacity:    resources("cpu", "8", "memory", "32Gi", "pods", "110", "ephemeral-storage", "100Gi"),
			Allocatable: resources("cpu", "7800m", "memory", "31Gi", "pods", "110", "ephemeral-storage", "95Gi"),
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Images:      []corev1.ContainerImage{{Names: []string{"registry.example.com/team/app:v1"}, SizeBytes: 1 << 27}},
			NodeInfo:    corev1.NodeSystemInfo{KubeletVersion: "v1.36.3", OSImage: "Linux"},
		},
	}
}

// cachedBytesPerObject feeds n objects through transform into a store
// keyed as the informers key theirs and returns the heap the store keeps
// per object once the API objects are garbage.
func cachedBytesPerObject(t *testing.T, n int, object func(int) any, transform cache.TransformFunc) float64 {
	t.Helper()
	store := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		obj, err := transform(object(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if got := len(store.List()); got != n {
		t.Fatalf("store holds %d objects, want %d", got, n)
	}
	runtime.KeepAlive(store)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// A member with tens of thousands of pods must cost the controller
// manager little per pod: the store keeps a record of a few hundred bytes
// (with its key), not a trimmed Pod of kilobytes.
func TestPodRecordsCachedSmall(t *testing.T) {
	const limit = 700
	per := cachedBytesPerObject(t, 5000, func(i int) any { return memberPod(i) }, podRecord)
	t.Logf("%.0f bytes per cached pod", per)
	if per > limit {
		t.Fatalf("a cached pod costs %.0f bytes of heap, want at most %d", per, limit)
	}
}

func TestNodeRecordsCachedSmall(t *testing.T) {
	const limit = 400
	per := cachedBytesPerObject(t, 5000, func(i int) any { return memberNode(i) }, nodeRecord)
	t.Logf("%.0f bytes per cached node", per)
	if per > limit {
		t.Fatalf("a cached node costs %.0f bytes of heap, want at most %d", per, limit)
	}
}

func TestPodRequestsContainersVersusInitPlusOverhead(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: resources("cpu", "100m", "memory", "64Mi")}},
			{Resources: corev1.ResourceRequirements{Requests: resources("cpu", "200m", "nvidia.com/gpu", "1")}}},
		InitContainers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: resources("cpu", "500m", "memory", "32Mi", "example.com/zero", "0")}},
			{Resources: corev1.ResourceRequirements{Requests: resources("cpu", "50m", "memory", "128Mi")}}},
		Overhead: resources("cpu", "10m", "memory", "1Mi"),
	}}
	r := PodRecordOf(p)
	// cpu: max(300m, 500m)+10m; memory: max(64Mi, 128Mi)+1Mi; gpu: 1; an
	// init container's zero request adds nothing.
	want := resources("cpu", "510m", "memory", "129Mi", "nvidia.com/gpu", "1")
	if got := r.Requests().ResourceList(); !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("requests %v, want %v", got, want)
	}
	if v, ok := r.Requests().Get("example.com/zero"); ok {
		t.Fatalf("zero init request recorded as %d", v)
	}
}

// The record rebuilds what the FederatedHPA's replica calculation reads.
func TestPodRecordRebuildsPod(t *testing.T) {
	p := memberPod(3)
	del := metav1.NewTime(time.Unix(1700000100, 0))
	p.DeletionTimestamp = &del
	p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar"})
	r := PodRecordOf(p)
	want := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, ResourceVersion: p.ResourceVersion, Labels: p.Labels, DeletionTimestamp: &del},
		Spec: corev1.PodSpec{NodeName: p.Spec.NodeName, Containers: []corev1.Container{
			{Name: "app", Resources: corev1.ResourceRequirements{Requests: resources("cpu", "100m", "memory", "128Mi")}}, {Name: "sidecar"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: p.Status.StartTime,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: p.Status.Conditions[1].LastTransitionTime}}},
	}
	if got := r.Pod(); !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("rebuilt pod\n%+v\nwant\n%+v", got, want)
	}
	if !r.Labels().Has("pod-template-hash") || r.Labels().Get("app") != "app-3" || r.Labels().Has("missing") {
		t.Fatalf("labels %v", r.Labels())
	}
}

func TestNodeRecordAllocatableKeepsFormats(t *testing.T) {
	n := memberNode(1)
	n.Status.Allocatable = resources("cpu", "3500m", "memory", "8G", "hugepages-2Mi", "1Gi", "example.com/dev", "2")
	r := NodeRecordOf(n)
	got := r.Allocatable.ResourceList()
	for name, want := range map[corev1.ResourceName]string{"cpu": "3500m", "memory": "8G", "hugepages-2Mi": "1Gi", "example.com/dev": "2"} {
		if q := got[name]; q.String() != want {
			t.Errorf("%s = %s, want %s", name, q.String(), want)
		}
	}
	if !r.Ready || r.Name() != n.Name {
		t.Errorf("record %+v", r)
	}
}
