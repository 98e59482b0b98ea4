package unifiedauth

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func role(name string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func clusterProxy(names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{clusterGroup}, Resources: []string{clusterProxyResource}, ResourceNames: names, Verbs: []string{"*"}}
}

func bind(name, roleKind, roleName string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: roleKind, Name: roleName},
		Subjects:   subjects,
	}
}

func user(n string) rbacv1.Subject  { return rbacv1.Subject{Kind: rbacv1.UserKind, Name: n} }
func group(n string) rbacv1.Subject { return rbacv1.Subject{Kind: rbacv1.GroupKind, Name: n} }
func sa(ns, n string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: n}
}

func TestGrantsProxyTo(t *testing.T) {
	cases := []struct {
		name string
		rule rbacv1.PolicyRule
		want bool
	}{
		{"the cluster by name", clusterProxy("member1", "member2"), true},
		{"another cluster by name", clusterProxy("member2"), false},
		{"every cluster", clusterProxy(), true},
		{"every group and resource", rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}}, true},
		{"every resource of the cluster group, other names", rbacv1.PolicyRule{APIGroups: []string{clusterGroup}, Resources: []string{"*"}, ResourceNames: []string{"x"}}, false},
		{"the search proxy", rbacv1.PolicyRule{APIGroups: []string{searchGroup}, Resources: []string{searchProxyResource}, ResourceNames: []string{"x"}}, true},
		{"the clusters themselves", rbacv1.PolicyRule{APIGroups: []string{clusterGroup}, Resources: []string{"clusters"}}, false},
		{"proxy of another group", rbacv1.PolicyRule{APIGroups: []string{"other.io"}, Resources: []string{clusterProxyResource}}, false},
		{"search group, other resource", rbacv1.PolicyRule{APIGroups: []string{searchGroup}, Resources: []string{"resourceregistries"}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := role("r", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}}, c.rule)
			if got := grantsProxyTo(&r, "member1"); got != c.want {
				t.Errorf("grantsProxyTo(%+v, member1) = %v, want %v", c.rule, got, c.want)
			}
		})
	}
}

func TestProxySubjects(t *testing.T) {
	roles := []rbacv1.ClusterRole{
		role("member1-proxy", clusterProxy("member1")),
		role("member2-proxy", clusterProxy("member2")),
		role("search", rbacv1.PolicyRule{APIGroups: []string{searchGroup}, Resources: []string{searchProxyResource}}),
	}
	bindings := []rbacv1.ClusterRoleBinding{
		bind("a", "ClusterRole", "member1-proxy", user("alice"), group("devs")),
		bind("b", "ClusterRole", "member2-proxy", user("bob")),
		bind("c", "ClusterRole", "search", sa("ns", "searcher")),
		// Not a ClusterRole reference: ignored even with a matching name.
		bind("d", "Role", "member1-proxy", user("mallory")),
		bind("e", "ClusterRole", "missing", user("eve")),
	}
	got := proxySubjects(roles, bindings, "member1")
	want := []rbacv1.Subject{user("alice"), group("devs"), sa("ns", "searcher")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("subjects of member1 = %+v, want %+v", got, want)
	}
	if got := proxySubjects(roles[:2], bindings, "member3"); got != nil {
		t.Errorf("subjects of member3 = %+v, want none", got)
	}
}

func TestImpersonationRules(t *testing.T) {
	if got := impersonationRules(nil); got != nil {
		t.Errorf("rules of no subjects = %+v, want none", got)
	}
	got := impersonationRules([]rbacv1.Subject{
		group("g2"), user("bob"), sa("ns1", "sa"), user("alice"), group("g1"), user("bob"), sa("ns2", "sa"),
	})
	rule := func(resource string, names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{resource}, ResourceNames: names}
	}
	want := []rbacv1.PolicyRule{rule("users", "alice", "bob"), rule("serviceaccounts", "sa"), rule("groups", "g1", "g2")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rules = %+v, want %+v", got, want)
	}
	if got := impersonationRules([]rbacv1.Subject{group("g")}); !reflect.DeepEqual(got, []rbacv1.PolicyRule{rule("groups", "g")}) {
		t.Errorf("rules of one group = %+v", got)
	}
}

func TestAffectedClusters(t *testing.T) {
	all := []string{"member3", "member1", "member2"}
	cases := []struct {
		name string
		role rbacv1.ClusterRole
		want []string
	}{
		{"named clusters that exist", role("r", clusterProxy("member2", "gone"), clusterProxy("member1")), []string{"member1", "member2"}},
		{"every cluster's proxy", role("r", clusterProxy()), []string{"member1", "member2", "member3"}},
		{"the search proxy", role("r", clusterProxy("member1"), rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{searchProxyResource}}), []string{"member1", "member2", "member3"}},
		{"no proxy", role("r", rbacv1.PolicyRule{APIGroups: []string{clusterGroup}, Resources: []string{"clusters"}}), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := affectedClusters(&c.role, all); !reflect.DeepEqual(got, c.want) {
				t.Errorf("affected = %v, want %v", got, c.want)
			}
		})
	}
}
