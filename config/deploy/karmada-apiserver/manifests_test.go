package karmadaapiserver

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestRolesWriteNoWildcard checks the generated roles statically: a write
// verb never goes with every API group, and nothing is granted in
// admissionregistration.k8s.io. TestRoleOnAPIServer asks a real API
// server.
func TestRolesWriteNoWildcard(t *testing.T) {
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	roles := 0
	for _, obj := range objs {
		var rules []rbacv1.PolicyRule
		switch obj.GetKind() {
		case "ClusterRole":
			role := &rbacv1.ClusterRole{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, role); err != nil {
				t.Fatal(err)
			}
			rules = role.Rules
		case "Role":
			role := &rbacv1.Role{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, role); err != nil {
				t.Fatal(err)
			}
			rules = role.Rules
		default:
			continue
		}
		roles++
		for _, r := range rules {
			for _, g := range r.APIGroups {
				if g == "admissionregistration.k8s.io" {
					t.Errorf("%s %s grants %v on admissionregistration.k8s.io", obj.GetKind(), obj.GetName(), r.Verbs)
				}
			}
			for _, v := range r.Verbs {
				if v == "*" || (!readOnly(v) && contains(r.APIGroups, "*")) {
					t.Errorf("%s %s grants %q on every API group: %+v", obj.GetKind(), obj.GetName(), v, r)
				}
			}
		}
	}
	if roles < 3 {
		t.Fatalf("want the generated ClusterRole and its two Roles, found %d roles", roles)
	}
}

func readOnly(verb string) bool { return verb == "get" || verb == "list" || verb == "watch" }

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
