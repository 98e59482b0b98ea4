package lifecycle

import (
	"context"
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/test/harness"
)

// claim is what the detector writes on a template it claims.
type claim struct{ id, namespace, name string }

type snapshot struct {
	claims   map[string]claim     // template name -> claim ("" id: unclaimed)
	bindings map[string]types.UID // binding name -> uid
	ids      map[string]string    // binding name -> permanent id
	works    map[string]types.UID // <member>/<work name> -> uid
	workIDs  map[string]string    // <member>/<work name> -> Work permanent id
}

func (s *state) snapshot() snapshot {
	snap := snapshot{claims: map[string]claim{}, bindings: map[string]types.UID{}, ids: map[string]string{},
		works: map[string]types.UID{}, workIDs: map[string]string{}}
	for _, d := range s.templates {
		snap.claims[d.Name] = claim{
			id:        d.Labels[names.PropagationPolicyPermanentIDLabel],
			namespace: d.Annotations[names.PropagationPolicyNamespaceAnnotation],
			name:      d.Annotations[names.PropagationPolicyNameAnnotation],
		}
	}
	for _, rb := range s.bindings {
		snap.bindings[rb.Name] = rb.UID
		snap.ids[rb.Name] = rb.Labels[names.ResourceBindingPermanentIDLabel]
	}
	for m, works := range s.works {
		for _, w := range works {
			snap.works[m+"/"+w.Name] = w.UID
			snap.workIDs[m+"/"+w.Name] = w.Labels[names.WorkPermanentIDLabel]
		}
	}
	return snap
}

// TestRestartMidPropagationConvergesWithoutDuplicates kills the controller
// manager with SIGKILL while it is propagating 150 Deployments (some
// templates claimed and bound, some Works written, others not), starts a
// new one and checks that it finishes the job without duplicating or
// renaming anything the first one wrote: one binding per template with the
// permanent id it had before the kill, one Work per binding and member,
// every template's claim unchanged, every member running exactly the 150
// Deployments and every binding aggregating both members' status.
func TestRestartMidPropagationConvergesWithoutDuplicates(t *testing.T) {
	const ns, n = "lifecycle-restart", 150
	ctx := context.Background()
	createNamespace(t, ns)

	// The first controller manager is throttled (a low client QPS) so that
	// propagating 150 templates takes long enough to be interrupted.
	first := startControllerManager(t, "cm-before-kill", "--leader-elect=false", "--metrics-bind-address=0",
		"--kube-api-qps=15", "--kube-api-burst=15")
	waitClustersReady(t, first)
	pol := createPolicy(t, ns, "restart")
	want := createDeployments(t, ns, "restart", "restart", n)

	harness.Eventually(t, "the first Works written", func(ctx context.Context) (bool, error) {
		s, err := observe(ctx, ns)
		if err != nil {
			return false, err
		}
		return len(s.works[memberNames[0]])+len(s.works[memberNames[1]]) >= n/2, nil
	}, harness.Timeout(3*time.Minute), harness.WhileRunning([]*localenv.Process{first}...), harness.LogsIn(env.LogDir))
	first.Kill()
	before, err := observe(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	atKill := before.snapshot()
	claimed := 0
	for _, c := range atKill.claims {
		if c.id != "" {
			claimed++
		}
	}
	works := len(atKill.works)
	t.Logf("killed mid-propagation: %d/%d templates claimed, %d/%d bindings, %d/%d Works", claimed, n, len(atKill.bindings), n, works, 2*n)
	if claimed == 0 || len(atKill.bindings) == 0 || works == 0 {
		t.Fatalf("nothing was propagated before the kill")
	}
	if works >= 2*n {
		t.Fatalf("propagation had finished before the kill (%d Works): nothing was interrupted", works)
	}

	second := startControllerManager(t, "cm-after-kill", "--leader-elect=false", "--metrics-bind-address=0",
		"--kube-api-qps=500", "--kube-api-burst=1000")
	expectPropagated(t, ns, want, 5*time.Minute, second)

	after, err := observe(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pol), pol); err != nil {
		t.Fatal(err)
	}
	checkClaims(t, after, atKill, pol.Labels[names.PropagationPolicyPermanentIDLabel], ns, pol.Name)
	checkBindings(t, after, atKill, want)
	checkWorks(t, after, atKill, n)
	checkMembers(t, after, want)
}

// checkClaims: every template is claimed by the policy, and the claims
// made before the kill are unchanged.
func checkClaims(t *testing.T, after *state, atKill snapshot, policyID, ns, policyName string) {
	t.Helper()
	if policyID == "" {
		t.Fatal("the policy has no permanent id")
	}
	wantClaim := claim{id: policyID, namespace: ns, name: policyName}
	for name, c := range after.snapshot().claims {
		if c != wantClaim {
			t.Errorf("template %s: claim %+v, want %+v", name, c, wantClaim)
		}
		if old := atKill.claims[name]; old.id != "" && old != c {
			t.Errorf("template %s: claim changed across the restart: %+v, then %+v", name, old, c)
		}
	}
}

// checkBindings: exactly one binding per template, with a unique permanent
// id; bindings that existed at the kill are the same objects with the same id.
func checkBindings(t *testing.T, after *state, atKill snapshot, want []string) {
	t.Helper()
	perTemplate := map[string]int{}
	ids := map[string]string{}
	for _, rb := range after.bindings {
		perTemplate[rb.Spec.Resource.Name]++
		if rb.Spec.Resource.Kind != "Deployment" || rb.Name != names.BindingName("Deployment", rb.Spec.Resource.Name) {
			t.Errorf("binding %s: unexpected name or resource %s/%s", rb.Name, rb.Spec.Resource.Kind, rb.Spec.Resource.Name)
		}
		id := rb.Labels[names.ResourceBindingPermanentIDLabel]
		if id == "" {
			t.Errorf("binding %s has no permanent id", rb.Name)
		} else if other, dup := ids[id]; dup {
			t.Errorf("bindings %s and %s share permanent id %s", other, rb.Name, id)
		}
		ids[id] = rb.Name
		if uid, ok := atKill.bindings[rb.Name]; ok {
			if uid != rb.UID {
				t.Errorf("binding %s was recreated across the restart", rb.Name)
			}
			if old := atKill.ids[rb.Name]; old != id {
				t.Errorf("binding %s: permanent id changed across the restart: %q, then %q", rb.Name, old, id)
			}
		}
	}
	if len(after.bindings) != len(want) {
		t.Errorf("%d bindings, want %d", len(after.bindings), len(want))
	}
	for _, name := range want {
		if perTemplate[name] != 1 {
			t.Errorf("Deployment %s has %d bindings, want 1", name, perTemplate[name])
		}
	}
}

// checkWorks: in each member's execution space exactly one Work per
// binding (counted by the binding's permanent id label over every Work
// there) and no other Work for the namespace; Works that existed at the
// kill are the same objects with the same permanent id.
func checkWorks(t *testing.T, after *state, atKill snapshot, n int) {
	t.Helper()
	bindingOf := map[string]string{}
	for _, rb := range after.bindings {
		bindingOf[rb.Labels[names.ResourceBindingPermanentIDLabel]] = rb.Name
	}
	for _, m := range memberNames {
		perBinding := map[string]int{}
		for _, w := range after.allWorks[m] {
			if id := w.Labels[names.ResourceBindingPermanentIDLabel]; bindingOf[id] != "" {
				perBinding[id]++
			}
		}
		for id, rb := range bindingOf {
			if perBinding[id] != 1 {
				t.Errorf("%s: binding %s has %d Works, want 1", m, rb, perBinding[id])
			}
		}
		if got := len(after.works[m]); got != n {
			t.Errorf("%s: %d Works for the namespace, want %d", m, got, n)
		}
		for _, w := range after.works[m] {
			id := w.Labels[names.ResourceBindingPermanentIDLabel]
			if bindingOf[id] == "" {
				t.Errorf("%s: Work %s belongs to no binding (binding id %q)", m, w.Name, id)
			}
			key := m + "/" + w.Name
			if uid, ok := atKill.works[key]; ok {
				if uid != w.UID {
					t.Errorf("Work %s was recreated across the restart", key)
				}
				if old := atKill.workIDs[key]; old != w.Labels[names.WorkPermanentIDLabel] {
					t.Errorf("Work %s: permanent id changed across the restart: %q, then %q", key, old, w.Labels[names.WorkPermanentIDLabel])
				}
			}
		}
	}
}

// checkMembers: every member runs exactly the templates, nothing else.
func checkMembers(t *testing.T, after *state, want []string) {
	t.Helper()
	for _, m := range memberNames {
		var got []string
		for _, d := range after.members[m] {
			got = append(got, d.Name)
		}
		sort.Strings(got)
		wantSorted := append([]string(nil), want...)
		sort.Strings(wantSorted)
		if len(got) != len(wantSorted) {
			t.Errorf("%s runs %d Deployments, want %d", m, len(got), len(wantSorted))
			continue
		}
		for i := range got {
			if got[i] != wantSorted[i] {
				t.Errorf("%s runs %s, want %s", m, got[i], wantSorted[i])
				break
			}
		}
	}
}
