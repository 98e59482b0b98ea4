package unifiedauth

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
)

// The two proxies of karmada-apiserver that reach a member cluster: the
// cluster proxy, per cluster (the rule's resourceNames, none meaning
// every cluster), and the search proxy, which reaches every cluster.
const (
	clusterGroup         = "cluster.karmada.io"
	clusterProxyResource = "clusters/proxy"
	searchGroup          = "search.karmada.io"
	searchProxyResource  = "proxying/proxy"
)

// coversGroup reports whether rule applies to group ("*" covers all).
func coversGroup(rule *rbacv1.PolicyRule, group string) bool {
	return slices.Contains(rule.APIGroups, rbacv1.APIGroupAll) || slices.Contains(rule.APIGroups, group)
}

// coversResource reports whether rule applies to resource ("*" covers
// all).
func coversResource(rule *rbacv1.PolicyRule, resource string) bool {
	return slices.Contains(rule.Resources, rbacv1.ResourceAll) || slices.Contains(rule.Resources, resource)
}

func coversClusterProxy(rule *rbacv1.PolicyRule) bool {
	return coversGroup(rule, clusterGroup) && coversResource(rule, clusterProxyResource)
}

func coversSearchProxy(rule *rbacv1.PolicyRule) bool {
	return coversGroup(rule, searchGroup) && coversResource(rule, searchProxyResource)
}

// grantsProxyTo reports whether one of role's rules reaches cluster
// through a proxy. Verbs are not looked at, as in Karmada.
func grantsProxyTo(role *rbacv1.ClusterRole, cluster string) bool {
	for i := range role.Rules {
		rule := &role.Rules[i]
		if coversClusterProxy(rule) && (len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, cluster)) {
			return true
		}
		if coversSearchProxy(rule) {
			return true
		}
	}
	return false
}

// proxySubjects are the subjects of the ClusterRoleBindings that bind a
// ClusterRole granting cluster's proxy, in the bindings' order, repeated
// as often as they are bound. RoleBindings are not looked at: the proxy
// resources are cluster-scoped.
func proxySubjects(roles []rbacv1.ClusterRole, bindings []rbacv1.ClusterRoleBinding, cluster string) []rbacv1.Subject {
	granting := map[string]bool{}
	for i := range roles {
		if grantsProxyTo(&roles[i], cluster) {
			granting[roles[i].Name] = true
		}
	}
	if len(granting) == 0 {
		return nil
	}
	var subjects []rbacv1.Subject
	for i := range bindings {
		ref := bindings[i].RoleRef
		if ref.Kind == "ClusterRole" && granting[ref.Name] {
			subjects = append(subjects, bindings[i].Subjects...)
		}
	}
	return subjects
}

// impersonationRules are the rules of the member's impersonation
// ClusterRole: impersonate, by name, the users, then the ServiceAccounts,
// then the groups among subjects, each list sorted and without
// duplicates; a kind with no subject has no rule, and no subjects give no
// rules. ServiceAccounts are named without their namespace, as Karmada
// names them.
func impersonationRules(subjects []rbacv1.Subject) []rbacv1.PolicyRule {
	byKind := map[string][]string{}
	for _, s := range subjects {
		byKind[s.Kind] = append(byKind[s.Kind], s.Name)
	}
	var rules []rbacv1.PolicyRule
	for _, k := range []struct{ kind, resource string }{
		{rbacv1.UserKind, "users"}, {rbacv1.ServiceAccountKind, "serviceaccounts"}, {rbacv1.GroupKind, "groups"},
	} {
		names := byKind[k.kind]
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		rules = append(rules, rbacv1.PolicyRule{
			Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{k.resource},
			ResourceNames: slices.Compact(names),
		})
	}
	return rules
}

// affectedClusters are the clusters, among all, whose impersonation rules
// may change when role (or a binding of it) changes: those its cluster
// proxy rules name, or every cluster when a rule covers the cluster proxy
// of all clusters or the search proxy. Named clusters that do not exist
// are left out. The result is sorted.
func affectedClusters(role *rbacv1.ClusterRole, all []string) []string {
	named := map[string]bool{}
	for i := range role.Rules {
		rule := &role.Rules[i]
		if coversSearchProxy(rule) || (coversClusterProxy(rule) && len(rule.ResourceNames) == 0) {
			return sorted(all)
		}
		if coversClusterProxy(rule) {
			for _, n := range rule.ResourceNames {
				named[n] = true
			}
		}
	}
	var out []string
	for _, c := range all {
		if named[c] {
			out = append(out, c)
		}
	}
	return sorted(out)
}

func sorted(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return slices.Compact(out)
}
