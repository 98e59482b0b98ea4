package unifiedauth_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/cluster/lifecycle"
	"github.com/propel-mc/propel/internal/controllers/cluster/status"
	"github.com/propel-mc/propel/internal/controllers/unifiedauth"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/pipeline/execution"
	"github.com/propel-mc/propel/internal/pipeline/status/workstatus"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestImpersonationConfigReachesMember runs the unified-auth controller,
// under Propel's generated role, beside the controllers it relies on in
// production (cluster lifecycle and status, execution), against a control
// plane and one member. The member's impersonation ClusterRole and binding
// appear through Works once the Cluster names an impersonator Secret, and
// follow the control plane's RBAC as it changes.
func TestImpersonationConfigReachesMember(t *testing.T) {
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 2}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{{Name: "member1"}}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	startControllers(ctx, t, env)
	env.WaitClusterReady(t, "member1")
	member, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	c := env.Client

	// Who may reach member1: alice and the devs through its cluster proxy;
	// a ServiceAccount through the search proxy; bob only member2.
	mustCreate(ctx, t, c,
		proxyRole("proxy-member1", rbacv1.PolicyRule{APIGroups: []string{"cluster.karmada.io"}, Resources: []string{"clusters/proxy"}, ResourceNames: []string{"member1"}, Verbs: []string{"*"}}),
		binding("proxy-member1", "proxy-member1", rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"}, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "devs"}),
		proxyRole("search-proxy", rbacv1.PolicyRule{APIGroups: []string{"search.karmada.io"}, Resources: []string{"proxying/proxy"}, Verbs: []string{"*"}}),
		binding("search-proxy", "search-proxy", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: "tools", Name: "searcher"}),
		proxyRole("proxy-member2", rbacv1.PolicyRule{APIGroups: []string{"cluster.karmada.io"}, Resources: []string{"clusters/proxy"}, ResourceNames: []string{"member2"}, Verbs: []string{"*"}}),
		binding("proxy-member2", "proxy-member2", rbacv1.Subject{Kind: rbacv1.UserKind, Name: "bob"}),
	)
	// Without an impersonator Secret nothing is propagated.
	harness.Consistently(t, "no impersonation Works without an impersonator", 2*time.Second, func(ctx context.Context) error {
		works := &workv1alpha1.WorkList{}
		if err := c.List(ctx, works, client.InNamespace(names.ExecutionSpace("member1"))); err != nil {
			return err
		}
		for _, w := range works.Items {
			if w.Name == workName("ClusterRole") || w.Name == workName("ClusterRoleBinding") {
				return fmt.Errorf("work %s exists", w.Name)
			}
		}
		return nil
	}, harness.Interval(500*time.Millisecond))

	cluster := &clusterv1alpha1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Name: "member1"}, cluster); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(cluster.DeepCopy())
	cluster.Spec.ImpersonatorSecretRef = &clusterv1alpha1.LocalSecretReference{Namespace: "karmada-cluster", Name: "member1-impersonator"}
	if err := c.Patch(ctx, cluster, patch); err != nil {
		t.Fatal(err)
	}

	waitMemberRules(t, member, []string{"users/alice", "serviceaccounts/searcher", "groups/devs", "groups/system:masters"}, []string{"users/bob"})
	harness.Eventually(t, "member ClusterRoleBinding karmada-impersonator", func(ctx context.Context) (bool, error) {
		b := &rbacv1.ClusterRoleBinding{}
		if err := member.Get(ctx, client.ObjectKey{Name: "karmada-impersonator"}, b); err != nil {
			return false, err
		}
		want := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "karmada-cluster", Name: "karmada-impersonator"}}
		if !reflect.DeepEqual(b.Subjects, want) || b.RoleRef.Kind != "ClusterRole" || b.RoleRef.Name != "karmada-impersonator" || b.Labels[names.SystemLabel] != "true" {
			return false, fmt.Errorf("binding %+v %+v labels %v", b.Subjects, b.RoleRef, b.Labels)
		}
		return true, nil
	})
	for _, kind := range []string{"ClusterRole", "ClusterRoleBinding"} {
		w := &workv1alpha1.Work{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: names.ExecutionSpace("member1"), Name: workName(kind)}, w); err != nil {
			t.Fatalf("Work of the %s: %v", kind, err)
		}
		if ref := metav1.GetControllerOf(w); ref == nil || ref.Kind != "Cluster" || ref.Name != "member1" || ref.UID != cluster.UID {
			t.Errorf("Work of the %s is controlled by %+v, want Cluster member1", kind, ref)
		}
	}
	harness.Eventually(t, "SyncImpersonationConfigSucceed event on Cluster member1", func(ctx context.Context) (bool, error) {
		events := &corev1.EventList{}
		if err := c.List(ctx, events); err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == "Cluster" && e.InvolvedObject.Name == "member1" && e.Reason == unifiedauth.EventReasonSyncImpersonationConfigSucceed &&
				e.Type == corev1.EventTypeNormal && e.Message == "Sync impersonation config succeed." && e.Source.Component == "unified-auth-controller" {
				return true, nil
			}
		}
		return false, nil
	})

	// Subjects change: bob is bound to member1's proxy, the search proxy
	// binding goes.
	bobBinding := binding("proxy-member1-bob", "proxy-member1", rbacv1.Subject{Kind: rbacv1.UserKind, Name: "bob"})
	mustCreate(ctx, t, c, bobBinding)
	if err := c.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "search-proxy"}}); err != nil {
		t.Fatal(err)
	}
	waitMemberRules(t, member, []string{"users/alice", "users/bob", "groups/devs"}, []string{"serviceaccounts/searcher"})

	// The role stops granting member1's proxy: its subjects may no longer
	// be impersonated.
	role := &rbacv1.ClusterRole{}
	if err := c.Get(ctx, client.ObjectKey{Name: "proxy-member1"}, role); err != nil {
		t.Fatal(err)
	}
	role.Rules[0].ResourceNames = []string{"member2"}
	if err := c.Update(ctx, role); err != nil {
		t.Fatal(err)
	}
	waitMemberRules(t, member, []string{"groups/system:masters"}, []string{"users/alice", "users/bob", "groups/devs"})
}

func startControllers(ctx context.Context, t *testing.T, env *harness.Env) {
	t.Helper()
	_, err := harness.RunManager(ctx, env.ControllerManager.Config, func(mgr ctrl.Manager) error {
		if err := index.AddDefaultIndexes(context.Background(), mgr); err != nil {
			return err
		}
		if err := lifecycle.New(lifecycle.Options{}).SetupWithManager(mgr); err != nil {
			return err
		}
		clients := membercluster.New(mgr.GetClient(), membercluster.Options{})
		informers := membercluster.NewInformers(membercluster.InformerOptions{})
		if err := informers.SetupWithManager(mgr, clients, true); err != nil {
			return err
		}
		if err := status.New(clients, informers, status.Options{UpdateFrequency: time.Second, SuccessThreshold: 2 * time.Second, FailureThreshold: 2 * time.Second}).SetupWithManager(mgr); err != nil {
			return err
		}
		ws := workstatus.New(workstatus.Deps{Client: mgr.GetClient(), Clients: clients, Informers: informers},
			workstatus.Options{OutcomesOnly: true, SkipNameValidation: true})
		if err := ws.SetupWithManager(mgr); err != nil {
			return err
		}
		if err := execution.New(execution.Deps{
			Client: mgr.GetClient(), Clients: clients, Informers: informers, Status: ws,
			//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
			Interpreter: resourceinterpreter.New(native.New()), Recorder: mgr.GetEventRecorderFor("execution-controller"),
		}, execution.Options{SkipNameValidation: true}).SetupWithManager(mgr); err != nil {
			return err
		}
		return unifiedauth.New(unifiedauth.Deps{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(),
			//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
			Recorder: mgr.GetEventRecorderFor(names.UnifiedAuthControllerName),
		}, unifiedauth.Options{SkipNameValidation: true}).SetupWithManager(mgr)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func workName(kind string) string { return names.WorkName(kind, "karmada-impersonator", "") }

func proxyRole(name string, rule rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{rule}}
}

func binding(name, role string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   subjects,
	}
}

func mustCreate(ctx context.Context, t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// impersonable are who a member ClusterRole lets impersonate, as
// "<resource>/<name>", with its rules' other fields checked.
func impersonable(role *rbacv1.ClusterRole) (map[string]bool, error) {
	out := map[string]bool{}
	for _, r := range role.Rules {
		if !reflect.DeepEqual(r.Verbs, []string{"impersonate"}) || !reflect.DeepEqual(r.APIGroups, []string{""}) || len(r.Resources) != 1 {
			return nil, fmt.Errorf("rule %+v is not an impersonation rule", r)
		}
		for _, n := range r.ResourceNames {
			out[r.Resources[0]+"/"+n] = true
		}
	}
	return out, nil
}

// waitMemberRules waits until the member's karmada-impersonator
// ClusterRole, labelled as Karmada's, lets impersonate every one of want
// and none of unwanted ("<resource>/<name>"). The control plane's own
// RBAC (cluster-admin's subjects, Propel's role, whose read of every
// resource covers the proxies) adds subjects of its own.
func waitMemberRules(t *testing.T, member client.Client, want, unwanted []string) {
	t.Helper()
	harness.Eventually(t, fmt.Sprintf("member ClusterRole karmada-impersonator for %v and not %v", want, unwanted), func(ctx context.Context) (bool, error) {
		role := &rbacv1.ClusterRole{}
		if err := member.Get(ctx, client.ObjectKey{Name: "karmada-impersonator"}, role); err != nil {
			return false, err
		}
		if role.Labels[names.SystemLabel] != "true" || role.Labels[names.ManagedLabel] != "true" {
			return false, fmt.Errorf("labels %v", role.Labels)
		}
		got, err := impersonable(role)
		if err != nil {
			return false, err
		}
		for _, w := range want {
			if !got[w] {
				return false, fmt.Errorf("rules %+v lack %s", role.Rules, w)
			}
		}
		for _, u := range unwanted {
			if got[u] {
				return false, fmt.Errorf("rules %+v still have %s", role.Rules, u)
			}
		}
		return true, nil
	})
}
