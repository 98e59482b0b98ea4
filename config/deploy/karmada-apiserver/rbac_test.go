package karmadaapiserver_test

import (
	"context"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	karmadaapiserver "github.com/propel-mc/propel/config/deploy/karmada-apiserver"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/test/harness"
)

// access is one request Propel's identity makes, or must never be able to.
type access struct {
	group, resource, subresource, verb, namespace string
}

// needed are calls the controllers make (the marker beside each names the
// package); the e2e suites run the controller manager under the same role.
var needed = []access{
	// detector: templates of any kind are read, claimed in the workload groups.
	{"apps", "deployments", "", "watch", ""},
	{"", "configmaps", "", "list", ""},
	{"example.io", "widgets", "", "list", ""},
	{"apps", "deployments", "", "update", "default"},
	{"", "secrets", "", "update", "default"},
	{"policy.karmada.io", "propagationpolicies", "", "patch", "default"},
	{"work.karmada.io", "resourcebindings", "", "create", "default"},
	{"work.karmada.io", "clusterresourcebindings", "", "update", ""},
	// binding and execution controllers: Works, their finalizers and status.
	{"work.karmada.io", "works", "", "create", "karmada-es-member1"},
	{"work.karmada.io", "works", "", "delete", "karmada-es-member1"},
	{"work.karmada.io", "works", "", "patch", "karmada-es-member1"},
	{"work.karmada.io", "works", "status", "update", "karmada-es-member1"},
	// scheduler and binding status.
	{"work.karmada.io", "resourcebindings", "", "patch", "default"},
	{"work.karmada.io", "resourcebindings", "status", "update", "default"},
	{"work.karmada.io", "clusterresourcebindings", "status", "patch", ""},
	// template status and scale.
	{"apps", "deployments", "status", "update", "default"},
	{"apps", "deployments", "scale", "update", "default"},
	// cluster controllers: finalizers, taints, status, execution namespaces,
	// member credentials, Pull clusters' Leases.
	{"cluster.karmada.io", "clusters", "", "patch", ""},
	{"cluster.karmada.io", "clusters", "status", "patch", ""},
	{"", "namespaces", "", "create", ""},
	{"", "namespaces", "", "delete", ""},
	{"", "secrets", "", "get", "karmada-cluster"},
	{"coordination.k8s.io", "leases", "", "get", "karmada-cluster"},
	// serviceImport (derived Services) and endpointSlice (imported slices).
	{"", "services", "", "create", "default"},
	{"", "services", "", "delete", "default"},
	{"discovery.k8s.io", "endpointslices", "", "create", "default"},
	{"discovery.k8s.io", "endpointslices", "", "delete", "default"},
	// quota, autoscaling, rebalancer.
	{"policy.karmada.io", "federatedresourcequotas", "status", "update", "default"},
	{"autoscaling.karmada.io", "federatedhpas", "status", "update", "default"},
	{"apps.karmada.io", "workloadrebalancers", "", "delete", ""},
	// agentcsrapproving: agent CSRs are approved.
	{"certificates.k8s.io", "certificatesigningrequests", "approval", "update", ""},
	// the manager: Events, leader election, secure metrics.
	{"", "events", "", "create", "default"},
	{"events.k8s.io", "events", "", "patch", "default"},
	{"coordination.k8s.io", "leases", "", "update", "karmada-system"},
	{"coordination.k8s.io", "leases", "", "create", "karmada-system"},
	{"authentication.k8s.io", "tokenreviews", "", "create", ""},
}

// forbidden are writes that would let the controller take over the
// control plane, and writes the code never makes.
var forbidden = []access{
	// The admission webhooks that protect karmada-apiserver.
	{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "", "patch", ""},
	{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "", "update", ""},
	{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "", "delete", ""},
	{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", "patch", ""},
	{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", "update", ""},
	{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", "create", ""},
	{"admissionregistration.k8s.io", "validatingadmissionpolicies", "", "update", ""},
	// RBAC, CRDs, aggregated APIs, identities.
	{"rbac.authorization.k8s.io", "clusterroles", "", "update", ""},
	{"rbac.authorization.k8s.io", "clusterrolebindings", "", "create", ""},
	{"rbac.authorization.k8s.io", "clusterroles", "", "escalate", ""},
	{"apiextensions.k8s.io", "customresourcedefinitions", "", "update", ""},
	{"apiregistration.k8s.io", "apiservices", "", "update", ""},
	{"", "serviceaccounts", "token", "create", "karmada-system"},
	{"", "users", "", "impersonate", ""},
	// Templates are never created or deleted; Secrets are never created
	// or deleted anywhere.
	{"apps", "deployments", "", "create", "default"},
	{"apps", "deployments", "", "delete", "default"},
	{"", "secrets", "", "create", "karmada-cluster"},
	{"", "secrets", "", "delete", "karmada-cluster"},
	{"", "secrets", "", "create", "kube-system"},
	// Kinds outside the workload groups are written only when an
	// aggregated ClusterRole grants them.
	{"example.io", "widgets", "", "update", "default"},
	// Leases only in karmada-system; nodes and pods never executed into.
	{"coordination.k8s.io", "leases", "", "update", "kube-system"},
	{"", "nodes", "", "update", ""},
	{"", "pods", "exec", "create", "default"},
	// Only the kube-apiserver client signer's CSRs are approved, and none
	// is signed.
	{"certificates.k8s.io", "signers", "", "approve", ""},
	{"certificates.k8s.io", "certificatesigningrequests", "status", "update", ""},
	// Karmada's own objects are not deleted where the code does not.
	{"cluster.karmada.io", "clusters", "", "delete", ""},
	{"policy.karmada.io", "propagationpolicies", "", "delete", "default"},
}

// TestRoleOnAPIServer applies the shipped ServiceAccount, generated roles
// and bindings to a real kube-apiserver with RBAC authorization and asks,
// as the ServiceAccount's user, what it may do.
func TestRoleOnAPIServer(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoJoin: true, NoControlPlaneControllers: true})
	if env.ControllerManager == nil || env.ControllerManager.User != karmadaapiserver.UserName {
		t.Fatalf("the environment did not set up Propel's identity: %+v", env.ControllerManager)
	}
	self, err := kubernetes.NewForConfig(env.ControllerManager.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, a := range needed {
		if !allowed(ctx, t, self, a) {
			t.Errorf("the role does not allow a call the controllers make: %+v", a)
		}
	}
	for _, a := range forbidden {
		if allowed(ctx, t, self, a) {
			t.Errorf("the role allows %+v", a)
		}
	}
	// A real request, not only the authorizer's answer.
	_, err = self.AdmissionregistrationV1().ValidatingWebhookConfigurations().Patch(ctx, "any", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("patch of a ValidatingWebhookConfiguration: want Forbidden, got %v", err)
	}
	if _, err := self.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list namespaces: %v", err)
	}
}

// allowed asks the API server, as the identity itself, whether it may make
// the request a.
func allowed(ctx context.Context, t *testing.T, c kubernetes.Interface, a access) bool {
	t.Helper()
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Group: a.group, Resource: a.resource, Subresource: a.subresource, Verb: a.verb, Namespace: a.namespace, Name: "any",
		},
	}}
	got, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("review %+v: %v", a, err)
	}
	return got.Status.Allowed
}
