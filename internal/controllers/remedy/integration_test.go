package remedy_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/remedy"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestRemedy runs the remedy controller on a real control plane with
// Cluster objects whose conditions the test sets, as the example CoreDNS
// detector would.
func TestRemedy(t *testing.T) {
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 2}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := env.Client
	for _, name := range []string{"member1", "member2"} {
		if err := c.Create(ctx, &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}}); err != nil {
			t.Fatal(err)
		}
	}
	setDNS(ctx, t, c, "member1", metav1.ConditionTrue)
	setDNS(ctx, t, c, "member2", metav1.ConditionTrue)
	if _, err := harness.RunManager(ctx, env.ControllerManagerConfig(), func(mgr manager.Manager) error {
		return remedy.New(remedy.Deps{Client: mgr.GetClient()}).SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}

	// Karmada's sample: TrafficControl while DNS resolution fails.
	dns := &remedyv1alpha1.Remedy{
		ObjectMeta: metav1.ObjectMeta{Name: "dns-failure"},
		Spec: remedyv1alpha1.RemedySpec{
			DecisionMatches: []remedyv1alpha1.DecisionMatch{{ClusterConditionMatch: &remedyv1alpha1.ClusterConditionRequirement{
				ConditionType: remedyv1alpha1.ServiceDomainNameResolutionReady, Operator: remedyv1alpha1.ClusterConditionEqual, ConditionStatus: "False",
			}}},
			Actions: []remedyv1alpha1.RemedyAction{remedyv1alpha1.TrafficControl},
		},
	}
	if err := c.Create(ctx, dns); err != nil {
		t.Fatal(err)
	}
	setDNS(ctx, t, c, "member1", metav1.ConditionFalse)
	waitActions(t, c, "member1", "TrafficControl")
	waitActions(t, c, "member2")
	setDNS(ctx, t, c, "member1", metav1.ConditionTrue)
	waitActions(t, c, "member1")

	// A Remedy without decision matches applies at once to the clusters it
	// names; deleting it takes its action away.
	always := &remedyv1alpha1.Remedy{
		ObjectMeta: metav1.ObjectMeta{Name: "drain-member2"},
		Spec: remedyv1alpha1.RemedySpec{
			ClusterAffinity: &remedyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}},
			Actions:         []remedyv1alpha1.RemedyAction{remedyv1alpha1.TrafficControl},
		},
	}
	if err := c.Create(ctx, always); err != nil {
		t.Fatal(err)
	}
	waitActions(t, c, "member2", "TrafficControl")
	// Moving it to member1 updates both clusters.
	always.Spec.ClusterAffinity.ClusterNames = []string{"member1"}
	if err := c.Update(ctx, always); err != nil {
		t.Fatal(err)
	}
	waitActions(t, c, "member1", "TrafficControl")
	waitActions(t, c, "member2")
	if err := c.Delete(ctx, always); err != nil {
		t.Fatal(err)
	}
	waitActions(t, c, "member1")
	waitActions(t, c, "member2")
}

func setDNS(ctx context.Context, t *testing.T, c client.Client, name string, status metav1.ConditionStatus) {
	t.Helper()
	cl := &clusterv1alpha1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, cl); err != nil {
		t.Fatal(err)
	}
	reason := "ServiceDomainNameResolutionReady"
	if status != metav1.ConditionTrue {
		reason = "ServiceDomainNameResolutionFailed"
	}
	meta.SetStatusCondition(&cl.Status.Conditions, metav1.Condition{Type: string(remedyv1alpha1.ServiceDomainNameResolutionReady), Status: status, Reason: reason})
	if err := c.Status().Update(ctx, cl); err != nil {
		t.Fatal(err)
	}
}

func waitActions(t *testing.T, c client.Client, cluster string, want ...string) {
	t.Helper()
	harness.Eventually(t, fmt.Sprintf("cluster %s remedyActions %v", cluster, want), func(ctx context.Context) (bool, error) {
		cl := &clusterv1alpha1.Cluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: cluster}, cl); err != nil {
			return false, err
		}
		if slices.Equal(cl.Status.RemedyActions, want) {
			return true, nil
		}
		return false, fmt.Errorf("remedyActions %v", cl.Status.RemedyActions)
	})
}
