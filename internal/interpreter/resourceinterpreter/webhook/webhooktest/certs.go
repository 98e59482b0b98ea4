// Package webhooktest owns the test fixtures shared by interpreter-webhook
// tests: a throwaway certificate authority, serving certificates it signs,
// and real HTTPS servers trusting nothing but that CA. It has no mocks: the
// servers are net/http servers on loopback.
package webhooktest

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"time"

	"github.com/propel-mc/propel/internal/cli/localenv"
)

// CA is a certificate authority generated in memory.
type CA struct {
	// PEM is the CA certificate, ready to be used as a caBundle.
	PEM []byte
	ca  *localenv.CA
}

// NewCA generates a certificate authority valid for one day.
func NewCA() (*CA, error) {
	ca, err := localenv.NewCA("propel-webhook-test-ca", 24*time.Hour)
	if err != nil {
		return nil, err
	}
	return &CA{PEM: ca.CertPEM, ca: ca}, nil
}

// ServingPair signs a serving certificate for hosts (IP addresses or DNS
// names) and returns the certificate and key in PEM.
func (ca *CA) ServingPair(hosts ...string) (certPEM, keyPEM []byte, err error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return ca.ca.Sign(tmpl)
}

// ServingCert is ServingPair as a tls.Certificate.
func (ca *CA) ServingCert(hosts ...string) (tls.Certificate, error) {
	certPEM, keyPEM, err := ca.ServingPair(hosts...)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}
