package localenv

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// PKI is the certificate authority shared by every API server of one
// environment. It signs serving certificates for loopback and client
// certificates for the admin user.
type PKI struct {
	Dir   string
	CAPEM []byte
	ca    *CA
	// saKeyMu serialises ServiceAccountKey: the API servers of several
	// members start at once and must all get the same, complete key.
	saKeyMu sync.Mutex
}

// LoadOrCreatePKI reuses the CA under dir, or creates one, so that a second
// local-up keeps the kubeconfigs users already have.
func LoadOrCreatePKI(dir string) (*PKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	certPath, keyPath := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	if certPEM, err := os.ReadFile(certPath); err == nil {
		keyPEM, err := os.ReadFile(keyPath)
		if err != nil {
			return nil, fmt.Errorf("read CA key: %w", err)
		}
		ca, err := ParseCA(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("CA in %s: %w", dir, err)
		}
		return &PKI{Dir: dir, CAPEM: ca.CertPEM, ca: ca}, nil
	}
	ca, err := NewCA("propel-local-ca", 10*365*24*time.Hour)
	if err != nil {
		return nil, err
	}
	if err := writeFiles(map[string][]byte{certPath: ca.CertPEM, keyPath: ca.KeyPEM}); err != nil {
		return nil, err
	}
	return &PKI{Dir: dir, CAPEM: ca.CertPEM, ca: ca}, nil
}

// CertPair is a PEM certificate and key, and the files they were written to.
type CertPair struct {
	CertPEM, KeyPEM   []byte
	CertFile, KeyFile string
}

// IssueServing signs a serving certificate for loopback (127.0.0.1,
// localhost and the extra DNS names) and writes it as <name>.crt/.key.
func (p *PKI) IssueServing(name string, dnsNames ...string) (*CertPair, error) {
	tmpl := p.template(name)
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	tmpl.DNSNames = append([]string{"localhost"}, dnsNames...)
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	return p.issue(name, tmpl)
}

// IssueClient signs a client certificate for user cn in groups orgs.
func (p *PKI) IssueClient(name, cn string, orgs ...string) (*CertPair, error) {
	tmpl := p.template(cn)
	tmpl.Subject.Organization = orgs
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return p.issue(name, tmpl)
}

func (p *PKI) template(cn string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(5 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
}

func (p *PKI) issue(name string, tmpl *x509.Certificate) (*CertPair, error) {
	certPEM, keyPEM, err := p.ca.Sign(tmpl)
	if err != nil {
		return nil, fmt.Errorf("sign %s certificate: %w", name, err)
	}
	pair := &CertPair{
		CertPEM:  certPEM,
		KeyPEM:   keyPEM,
		CertFile: filepath.Join(p.Dir, name+".crt"),
		KeyFile:  filepath.Join(p.Dir, name+".key"),
	}
	return pair, writeFiles(map[string][]byte{pair.CertFile: pair.CertPEM, pair.KeyFile: pair.KeyPEM})
}

// ServiceAccountKey writes (once) the RSA key pair API servers use to sign
// and verify service account tokens, returning the private and public paths.
func (p *PKI) ServiceAccountKey() (string, string, error) {
	p.saKeyMu.Lock()
	defer p.saKeyMu.Unlock()
	priv, pub := filepath.Join(p.Dir, "sa.key"), filepath.Join(p.Dir, "sa.pub")
	if _, err := os.Stat(pub); err == nil {
		return priv, pub, nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	// The private key first: the public key's presence says both are
	// complete, also to a later local-up reading the same directory.
	if err := writeFileAtomically(priv, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})); err != nil {
		return "", "", err
	}
	return priv, pub, writeFileAtomically(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}))
}

// writeFileAtomically writes data to a temporary file beside path and
// renames it into place, so that no reader ever sees a partial file.
func writeFileAtomically(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(f.Name(), path)
}

func encodeECKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

func writeFiles(files map[string][]byte) error {
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
