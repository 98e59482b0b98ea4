package agentcsr

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
)

// What makes a certificate request karmada-agent's.
const (
	agentOrganization     = "system:karmada:agents"
	agentCommonNamePrefix = "system:karmada:agent:"
)

// maxRequestBytes bounds spec.request before it is decoded: an agent's
// PEM request is well under 2 KiB; anything this large is not one.
const maxRequestBytes = 64 << 10

// approvedReason is the reason of the Approved condition the controller
// adds (Karmada's).
const approvedReason = "AutoApproved"

// kind is one kind of agent CSR: how it is recognized, the permission the
// requesting user needs for it to be approved, and the approval message
// (Karmada's text).
type kind struct {
	recognize  func(csr *certificatesv1.CertificateSigningRequest, req *x509.CertificateRequest) bool
	permission authorizationv1.ResourceAttributes
	message    string
}

// kinds are tried in order: a rotation CSR is an agent CSR too, and is
// approved as either, whichever the user is allowed first.
var kinds = []kind{
	{
		recognize:  isSelfAgentCSR,
		permission: csrPermission("selfclusteragent"),
		message:    "Auto approving self karmada agent certificate after SubjectAccessReview.",
	},
	{
		recognize:  isAgentCSR,
		permission: csrPermission("clusteragent"),
		message:    "Auto approving karmada agent certificate after SubjectAccessReview.",
	},
}

func csrPermission(subresource string) authorizationv1.ResourceAttributes {
	return authorizationv1.ResourceAttributes{
		Group: certificatesv1.GroupName, Version: "*", Resource: "certificatesigningrequests",
		Subresource: subresource, Verb: "create",
	}
}

// isAgentCSR: signed by the kube-apiserver client signer, and the request
// is an agent's (validateAgentRequest).
func isAgentCSR(csr *certificatesv1.CertificateSigningRequest, req *x509.CertificateRequest) bool {
	return csr.Spec.SignerName == certificatesv1.KubeAPIServerClientSignerName &&
		validateAgentRequest(req, csr.Spec.Usages) == nil
}

// isSelfAgentCSR: an agent CSR the agent files for itself, as its own
// user, to rotate its certificate.
func isSelfAgentCSR(csr *certificatesv1.CertificateSigningRequest, req *x509.CertificateRequest) bool {
	return csr.Spec.Username == req.Subject.CommonName && isAgentCSR(csr, req)
}

// validateAgentRequest says why req, with usages, is not an agent's
// certificate request, or nil when it is.
func validateAgentRequest(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	switch {
	case !slices.Equal(req.Subject.Organization, []string{agentOrganization}):
		return fmt.Errorf("subject organization is not %s", agentOrganization)
	case len(req.DNSNames) > 0:
		return errors.New("DNS subjectAltNames are not allowed")
	case len(req.EmailAddresses) > 0:
		return errors.New("email subjectAltNames are not allowed")
	case len(req.IPAddresses) > 0:
		return errors.New("IP subjectAltNames are not allowed")
	case len(req.URIs) > 0:
		return errors.New("URI subjectAltNames are not allowed")
	case !strings.HasPrefix(req.Subject.CommonName, agentCommonNamePrefix):
		return fmt.Errorf("subject common name does not begin with %s", agentCommonNamePrefix)
	case !agentUsages(usages):
		return fmt.Errorf("usages %v are not %s and %s, with or without %s", usages,
			certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth, certificatesv1.UsageKeyEncipherment)
	}
	return nil
}

// agentUsages reports whether usages, as a set, are digital signature and
// client auth, optionally with key encipherment.
func agentUsages(usages []certificatesv1.KeyUsage) bool {
	set := map[certificatesv1.KeyUsage]bool{}
	for _, u := range usages {
		set[u] = true
	}
	if !set[certificatesv1.UsageDigitalSignature] || !set[certificatesv1.UsageClientAuth] {
		return false
	}
	delete(set, certificatesv1.UsageKeyEncipherment)
	return len(set) == 2
}

// parseRequest decodes spec.request of the CSR name: one PEM block of
// type CERTIFICATE REQUEST holding a DER certificate request.
func parseRequest(name string, request []byte) (*x509.CertificateRequest, error) {
	if len(request) > maxRequestBytes {
		return nil, fmt.Errorf("certificatesigningrequest %s: spec.request is %d bytes, more than %d", name, len(request), maxRequestBytes)
	}
	block, _ := pem.Decode(request)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, fmt.Errorf("certificatesigningrequest %s: spec.request is not a PEM block of type CERTIFICATE REQUEST", name)
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("certificatesigningrequest %s: spec.request: %w", name, err)
	}
	return req, nil
}

// decided reports whether csr needs no decision any more: it has a
// certificate, or is approved or denied already.
func decided(csr *certificatesv1.CertificateSigningRequest) bool {
	if len(csr.Status.Certificate) != 0 {
		return true
	}
	for _, c := range csr.Status.Conditions {
		if c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied {
			return true
		}
	}
	return false
}

// approve adds the Approved condition with message to csr.
func approve(csr *certificatesv1.CertificateSigningRequest, message string) {
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: approvedReason, Message: message,
	})
}
