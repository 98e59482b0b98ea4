package agentcsr_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	certificatesv1 "k8s.io/api/certificates/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/agentcsr"
	"github.com/propel-mc/propel/test/harness"
)

// requester is who files a CSR: a user with groups, impersonated by the
// test's admin.
type requester struct {
	user   string
	groups []string
}

var (
	// bootstrap is karmada-agent registering with a bootstrap token: its
	// group may create CSRs and certificatesigningrequests/clusteragent.
	bootstrap = requester{"system:bootstrap:abcdef", []string{"system:bootstrappers:karmada:default-cluster-token"}}
	// agent1 is member1's agent rotating its certificate: its group may
	// create certificatesigningrequests/selfclusteragent only.
	agent1 = requester{"system:karmada:agent:member1", []string{"system:karmada:agents"}}
	agent2 = requester{"system:karmada:agent:member2", []string{"system:karmada:agents"}}
	// stranger may create CSRs, nothing more.
	stranger = requester{"alice", nil}
)

// TestApprovesAgentCSRs runs the controller under Propel's generated role
// against a real kube-apiserver and files CSRs as the agents (and others)
// would: agent CSRs whose requester may file them are approved with
// Karmada's reason and message; the others are left alone.
func TestApprovesAgentCSRs(t *testing.T) {
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 2}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoJoin: true, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	grantAgents(ctx, t, env.Kube)

	clientUsages := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth}
	agentSubject := pkix.Name{CommonName: "system:karmada:agent:member1", Organization: []string{"system:karmada:agents"}}
	// The ones that must stay undecided are filed first, so that by the
	// time the valid ones are approved the controller has seen them.
	left := map[string]struct {
		by      requester
		subject pkix.Name
		usages  []certificatesv1.KeyUsage
		signer  string
	}{
		"wrong-usages":   {bootstrap, agentSubject, append(clientUsages, certificatesv1.UsageServerAuth), certificatesv1.KubeAPIServerClientSignerName},
		"wrong-username": {agent2, agentSubject, clientUsages, certificatesv1.KubeAPIServerClientSignerName},
		"wrong-signer":   {bootstrap, agentSubject, clientUsages, "example.com/agent-signer"},
		"wrong-organization": {bootstrap, pkix.Name{CommonName: "system:karmada:agent:member1", Organization: []string{"system:nodes"}},
			clientUsages, certificatesv1.KubeAPIServerClientSignerName},
		"unauthorized-requester": {stranger, agentSubject, clientUsages, certificatesv1.KubeAPIServerClientSignerName},
	}
	for name, c := range left {
		file(ctx, t, env, c.by, name, c.subject, c.usages, c.signer)
	}
	if _, err := harness.RunManager(ctx, env.ControllerManager.Config, func(mgr ctrl.Manager) error {
		return agentcsr.New(agentcsr.Deps{Client: mgr.GetClient()}, agentcsr.Options{SkipNameValidation: true}).SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}
	file(ctx, t, env, bootstrap, "registration", agentSubject, clientUsages, certificatesv1.KubeAPIServerClientSignerName)
	file(ctx, t, env, agent1, "rotation", agentSubject,
		[]certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature}, certificatesv1.KubeAPIServerClientSignerName)

	for name, message := range map[string]string{
		"registration": "Auto approving karmada agent certificate after SubjectAccessReview.",
		"rotation":     "Auto approving self karmada agent certificate after SubjectAccessReview.",
	} {
		harness.Eventually(t, "CSR "+name+" approved", func(ctx context.Context) (bool, error) {
			csr, err := env.Kube.CertificatesV1().CertificateSigningRequests().Get(ctx, name, metav1.GetOptions{})
			if err != nil || len(csr.Status.Conditions) == 0 {
				return false, err
			}
			c := csr.Status.Conditions[0]
			if len(csr.Status.Conditions) != 1 || c.Type != certificatesv1.CertificateApproved || c.Status != "True" ||
				c.Reason != "AutoApproved" || c.Message != message {
				return false, fmt.Errorf("conditions %+v, want one Approved=True, AutoApproved, %q", csr.Status.Conditions, message)
			}
			return true, nil
		})
	}
	harness.Consistently(t, "invalid agent CSRs undecided", 3*time.Second, func(ctx context.Context) error {
		for name := range left {
			csr, err := env.Kube.CertificatesV1().CertificateSigningRequests().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if len(csr.Status.Conditions) != 0 {
				return fmt.Errorf("CSR %s: conditions %+v, want none", name, csr.Status.Conditions)
			}
		}
		return nil
	}, harness.Interval(500*time.Millisecond))
}

// grantAgents gives the requesters the permissions karmada-agent's
// identities have on karmada-apiserver.
func grantAgents(ctx context.Context, t *testing.T, kube kubernetes.Interface) {
	t.Helper()
	csrRule := func(resources ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{"certificates.k8s.io"}, Resources: resources, Verbs: []string{"create", "get"}}
	}
	grants := []struct {
		role    string
		rule    rbacv1.PolicyRule
		subject rbacv1.Subject
	}{
		{"test:csr-creator", csrRule("certificatesigningrequests"), rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:authenticated"}},
		{"test:agent-bootstrap", csrRule("certificatesigningrequests/clusteragent"), rbacv1.Subject{Kind: rbacv1.GroupKind, Name: bootstrap.groups[0]}},
		{"test:agent-rotation", csrRule("certificatesigningrequests/selfclusteragent"), rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:karmada:agents"}},
	}
	for _, g := range grants {
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: g.role}, Rules: []rbacv1.PolicyRule{g.rule}}
		if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: g.role},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: g.role},
			Subjects:   []rbacv1.Subject{g.subject},
		}
		if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// file creates the CSR name as by, for a new key and subject.
func file(ctx context.Context, t *testing.T, env *harness.Env, by requester, name string, subject pkix.Name, usages []certificatesv1.KeyUsage, signer string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject}, key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(env.ControlPlane.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: by.user, Groups: by.groups}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: signer, Usages: usages,
		},
	}
	created, err := kube.CertificatesV1().CertificateSigningRequests().Create(ctx, csr, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("file CSR %s as %s: %v", name, by.user, err)
	}
	if created.Spec.Username != by.user {
		t.Fatalf("CSR %s was filed as %q, not %s", name, created.Spec.Username, by.user)
	}
}
