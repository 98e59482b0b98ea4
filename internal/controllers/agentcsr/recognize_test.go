package agentcsr

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"net/url"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
)

// newRequest is a PEM certificate request for subject, changed by edit.
func newRequest(t testing.TB, subject pkix.Name, edit func(*x509.CertificateRequest)) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.CertificateRequest{Subject: subject}
	if edit != nil {
		edit(tmpl)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, tmpl, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func agentSubject(cluster string) pkix.Name {
	return pkix.Name{CommonName: agentCommonNamePrefix + cluster, Organization: []string{agentOrganization}}
}

var clientUsages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth}

func parsed(t *testing.T, pemBytes []byte) *x509.CertificateRequest {
	t.Helper()
	req, err := parseRequest("test", pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestValidateAgentRequest(t *testing.T) {
	cases := []struct {
		name    string
		subject pkix.Name
		edit    func(*x509.CertificateRequest)
		usages  []certificatesv1.KeyUsage
		wantErr string
	}{
		{name: "agent", subject: agentSubject("member1"), usages: clientUsages},
		{name: "agent without key encipherment", subject: agentSubject("member1"),
			usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature}},
		{name: "usages repeated", subject: agentSubject("member1"),
			usages: append(clientUsages, certificatesv1.UsageClientAuth)},
		{name: "server auth too", subject: agentSubject("member1"),
			usages: append(clientUsages, certificatesv1.UsageServerAuth), wantErr: "usages"},
		{name: "no digital signature", subject: agentSubject("member1"),
			usages: []certificatesv1.KeyUsage{certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth}, wantErr: "usages"},
		{name: "no usages", subject: agentSubject("member1"), wantErr: "usages"},
		{name: "another organization", subject: pkix.Name{CommonName: agentCommonNamePrefix + "m", Organization: []string{"system:nodes"}},
			usages: clientUsages, wantErr: "organization"},
		{name: "two organizations", subject: pkix.Name{CommonName: agentCommonNamePrefix + "m", Organization: []string{agentOrganization, "x"}},
			usages: clientUsages, wantErr: "organization"},
		{name: "common name without the prefix", subject: pkix.Name{CommonName: "system:node:m", Organization: []string{agentOrganization}},
			usages: clientUsages, wantErr: "common name"},
		{name: "DNS name", subject: agentSubject("m"), edit: func(r *x509.CertificateRequest) { r.DNSNames = []string{"a.example"} },
			usages: clientUsages, wantErr: "DNS"},
		{name: "email", subject: agentSubject("m"), edit: func(r *x509.CertificateRequest) { r.EmailAddresses = []string{"a@example.com"} },
			usages: clientUsages, wantErr: "email"},
		{name: "IP", subject: agentSubject("m"), edit: func(r *x509.CertificateRequest) { r.IPAddresses = []net.IP{net.ParseIP("10.0.0.1")} },
			usages: clientUsages, wantErr: "IP"},
		{name: "URI", subject: agentSubject("m"), edit: func(r *x509.CertificateRequest) { r.URIs = []*url.URL{{Scheme: "spiffe", Host: "x"}} },
			usages: clientUsages, wantErr: "URI"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := validateAgentRequest(parsed(t, newRequest(t, c.subject, c.edit)), c.usages)
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("want an agent request, got %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("want an error about %s, got %v", c.wantErr, err)
			}
		})
	}
}

func TestKinds(t *testing.T) {
	csr := func(user, signer string) *certificatesv1.CertificateSigningRequest {
		return &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{
			Username: user, SignerName: signer, Usages: clientUsages,
		}}
	}
	req := parsed(t, newRequest(t, agentSubject("member1"), nil))
	cases := []struct {
		name string
		csr  *certificatesv1.CertificateSigningRequest
		want []string // the subresources whose permission is asked, in order
	}{
		{"registration with a bootstrap token", csr("system:bootstrap:abcdef", certificatesv1.KubeAPIServerClientSignerName), []string{"clusteragent"}},
		{"rotation by the agent itself", csr("system:karmada:agent:member1", certificatesv1.KubeAPIServerClientSignerName), []string{"selfclusteragent", "clusteragent"}},
		{"another agent's rotation", csr("system:karmada:agent:member2", certificatesv1.KubeAPIServerClientSignerName), []string{"clusteragent"}},
		{"another signer", csr("system:karmada:agent:member1", certificatesv1.KubeAPIServerClientKubeletSignerName), nil},
		{"a custom signer", csr("system:bootstrap:abcdef", "example.com/signer"), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, k := range kinds {
				if k.recognize(c.csr, req) {
					got = append(got, k.permission.Subresource)
				}
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("recognized as %v, want %v", got, c.want)
			}
		})
	}
	for _, k := range kinds {
		p := k.permission
		if p.Group != "certificates.k8s.io" || p.Resource != "certificatesigningrequests" || p.Verb != "create" || p.Version != "*" {
			t.Errorf("permission %+v is not create on certificatesigningrequests", p)
		}
	}
}

func TestDecidedAndApprove(t *testing.T) {
	csr := &certificatesv1.CertificateSigningRequest{}
	if decided(csr) {
		t.Fatal("a new CSR is decided")
	}
	approve(csr, kinds[1].message)
	c := csr.Status.Conditions[0]
	if c.Type != certificatesv1.CertificateApproved || c.Status != "True" || c.Reason != "AutoApproved" ||
		c.Message != "Auto approving karmada agent certificate after SubjectAccessReview." {
		t.Errorf("approval condition = %+v", c)
	}
	if !decided(csr) {
		t.Error("an approved CSR is not decided")
	}
	denied := &certificatesv1.CertificateSigningRequest{Status: certificatesv1.CertificateSigningRequestStatus{
		Conditions: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateDenied, Status: "True"}},
	}}
	issued := &certificatesv1.CertificateSigningRequest{Status: certificatesv1.CertificateSigningRequestStatus{Certificate: []byte("x")}}
	if !decided(denied) || !decided(issued) {
		t.Error("a denied or issued CSR is not decided")
	}
}

func TestParseRequestRejects(t *testing.T) {
	valid := newRequest(t, agentSubject("m"), nil)
	cases := map[string][]byte{
		"empty":        nil,
		"not PEM":      []byte("hello"),
		"another type": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1, 2}}),
		"not DER":      pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte{1, 2}}),
		"too large":    append(valid, make([]byte, maxRequestBytes)...),
	}
	for name, b := range cases {
		if _, err := parseRequest("csr-1", b); err == nil || !strings.Contains(err.Error(), "csr-1") {
			t.Errorf("%s: want an error naming the CSR, got %v", name, err)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(newRequest(f, agentSubject("m"), nil))
	f.Add([]byte("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := parseRequest("fuzz", b)
		if err != nil {
			return
		}
		// Whatever parses is validated without panicking.
		_ = validateAgentRequest(req, clientUsages)
	})
}
