package usage

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func web(perCluster int32) *workv1alpha2.ResourceBindingSpec {
	return &workv1alpha2.ResourceBindingSpec{
		ReplicaRequirements: &workv1alpha2.ReplicaRequirements{ResourceRequest: rl("cpu", "500m", "memory", "512Mi")},
		Clusters:            []workv1alpha2.TargetCluster{{Name: "member1", Replicas: perCluster}, {Name: "member2", Replicas: perCluster}},
	}
}

func equal(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for n, q := range a {
		if q.Cmp(b[n]) != 0 {
			return false
		}
	}
	return true
}

// TestWorkedExample follows Karmada's worked example: 3+3 replicas of
// 500m/512Mi charge 3 CPU and 3Gi; 10+10 fits an overall of 10 CPU and
// 20Gi; 11+11 is refused on cpu with Karmada's message.
func TestWorkedExample(t *testing.T) {
	overall := rl("cpu", "10", "memory", "20Gi")
	used := OfBinding(web(3))
	if !equal(used, rl("cpu", "3", "memory", "3Gi")) {
		t.Fatalf("usage of 3+3: %v", used)
	}
	delta := Restrict(Delta(used, OfBinding(web(10))), overall)
	if !equal(delta, rl("cpu", "7", "memory", "7Gi")) {
		t.Fatalf("delta to 10+10: %v", delta)
	}
	newUsed, exceeded := Charge("team-a", "team-quota", overall, used, delta)
	if exceeded != nil || !equal(newUsed, rl("cpu", "10", "memory", "10Gi")) {
		t.Fatalf("10+10: used %v, exceeded %v", newUsed, exceeded)
	}
	delta = Restrict(Delta(OfBinding(web(10)), OfBinding(web(11))), overall)
	_, exceeded = Charge("team-a", "team-quota", overall, newUsed, delta)
	var err error = exceeded
	var e *Exceeded
	if !errors.As(err, &e) || e.Resource != corev1.ResourceCPU {
		t.Fatalf("11+11 must be refused on cpu, got %v", exceeded)
	}
	if want := "FederatedResourceQuota(team-a/team-quota) exceeded for resource cpu: requested sum 11, limit 10."; e.Error() != want {
		t.Errorf("message %q, want %q", e.Error(), want)
	}
}

func TestOfBindingComponentsAndEdges(t *testing.T) {
	spec := &workv1alpha2.ResourceBindingSpec{
		Components: []workv1alpha2.Component{
			{Name: "jobmanager", Replicas: 1, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: rl("cpu", "1")}},
			{Name: "taskmanager", Replicas: 2, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: rl("cpu", "2", "memory", "0")}},
			{Name: "norequest", Replicas: 5},
		},
		Clusters: []workv1alpha2.TargetCluster{{Name: "member1"}, {Name: "member2"}},
	}
	if got := OfBinding(spec); !equal(got, rl("cpu", "10")) {
		t.Errorf("components: %v, want cpu 10 ((1x1 + 2x2) x 2 clusters, zero memory left out)", got)
	}
	if got := OfBinding(&workv1alpha2.ResourceBindingSpec{Clusters: []workv1alpha2.TargetCluster{{Name: "m", Replicas: 3}}}); got != nil {
		t.Errorf("no requests: %v", got)
	}
	if got := OfBinding(web(0)); got != nil {
		t.Errorf("no replicas: %v", got)
	}
}

func TestChargeDropsNonPositiveAndUnaccumulated(t *testing.T) {
	used, exceeded := Charge("ns", "q", rl("cpu", "1"), rl("cpu", "1", "requests.cpu", "5"), rl("cpu", "-2", "example.com/gpu", "1"))
	if exceeded != nil {
		t.Fatal(exceeded)
	}
	if !equal(used, rl("example.com/gpu", "1")) {
		t.Errorf("used %v, want only the extended resource (cpu at -1 dropped, requests.cpu not accumulated)", used)
	}
}

// A binding with a negative request used to charge a negative quantity,
// erasing what a quota recorded as used (10 of 10 CPU became nothing).
func TestNegativeRequestChargesNothing(t *testing.T) {
	spec := &workv1alpha2.ResourceBindingSpec{
		ReplicaRequirements: &workv1alpha2.ReplicaRequirements{ResourceRequest: rl("cpu", "-100", "memory", "1Gi")},
		Clusters:            []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 1}},
	}
	err := CheckBinding(spec)
	if !errors.Is(err, ErrNegativeCharge) || err.Error() != "spec.replicaRequirements.resourceRequest.cpu is -100: a quota charge must not be negative" {
		t.Fatalf("CheckBinding: %v", err)
	}
	charge := OfBinding(spec)
	if !equal(charge, rl("memory", "1Gi")) {
		t.Fatalf("charge %v, want the memory alone", charge)
	}
	overall := rl("cpu", "10")
	used, exceeded := Charge("ns", "q", overall, rl("cpu", "10"), Restrict(Delta(nil, charge), overall))
	if exceeded != nil || !equal(used, rl("cpu", "10")) {
		t.Fatalf("used %v, exceeded %v: the recorded usage changed", used, exceeded)
	}
	comps := &workv1alpha2.ResourceBindingSpec{
		Components: []workv1alpha2.Component{{Name: "c", Replicas: -2, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: rl("cpu", "1")}}},
		Clusters:   []workv1alpha2.TargetCluster{{Name: "member1"}},
	}
	if err := CheckBinding(comps); !errors.Is(err, ErrNegativeCharge) {
		t.Fatalf("negative component replicas: %v", err)
	}
	if charge := OfBinding(comps); len(charge) != 0 {
		t.Fatalf("negative component replicas charge %v", charge)
	}
	if err := CheckBinding(web(3)); err != nil {
		t.Fatalf("a valid binding: %v", err)
	}
}
