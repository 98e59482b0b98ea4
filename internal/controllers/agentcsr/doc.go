// Package agentcsr owns the agent CSR approving controller (Karmada's
// "agentcsrapproving"): it approves the CertificateSigningRequests
// karmada-agent files on karmada-apiserver for its client certificate,
// when it registers a Pull cluster with a bootstrap token and when it
// rotates that certificate, and leaves every other CSR alone. It never
// denies.
//
// A CSR is an agent's when it asks the kubernetes.io/kube-apiserver-client
// signer for a certificate whose subject is organisation
// system:karmada:agents only and common name system:karmada:agent:<...>,
// with no subject alternative names, and with exactly the usages digital
// signature and client auth (key encipherment allowed too). It is a
// rotation ("self") CSR when, in addition, the requesting user is the
// common name. The controller then asks karmada-apiserver, with a
// SubjectAccessReview for the requesting user, whether they may create
// certificatesigningrequests/selfclusteragent (rotation) or
// certificatesigningrequests/clusteragent (registration), and approves on
// the first allowed, with reason AutoApproved and Karmada's message.
package agentcsr
