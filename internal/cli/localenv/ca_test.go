package localenv

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"testing"
)

// A second LoadOrCreatePKI reuses the CA the first wrote, and what it
// issues verifies against that CA.
func TestLoadOrCreatePKIReusesItsCA(t *testing.T) {
	dir := t.TempDir()
	first, err := LoadOrCreatePKI(dir)
	if err != nil {
		t.Fatal(err)
	}
	second, err := LoadOrCreatePKI(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.CAPEM, second.CAPEM) {
		t.Fatal("the second load made a new CA")
	}
	pair, err := second.IssueServing("apiserver", "api.local")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(first.CAPEM) {
		t.Fatal("CA is not PEM")
	}
	block, _ := pem.Decode(pair.CertPEM)
	if block == nil {
		t.Fatal("serving certificate is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "api.local"}); err != nil {
		t.Fatalf("serving certificate does not verify against the CA: %v", err)
	}
}

func TestParseCARejectsWhatIsNotPEM(t *testing.T) {
	if _, err := ParseCA([]byte("certificate"), []byte("key")); err == nil {
		t.Fatal("want an error")
	}
}
