package localenv

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"sync"
	"testing"
)

// API servers of several members start at once, each asking for the
// service account key: every caller must find both files complete, and
// all must see the same key.
func TestServiceAccountKeyConcurrentCallersSeeOneCompleteKey(t *testing.T) {
	p, err := LoadOrCreatePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const callers = 32
	pubs := make([][]byte, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			_, pub, err := p.ServiceAccountKey()
			if err != nil {
				errs[i] = err
				return
			}
			pubs[i], errs[i] = os.ReadFile(pub)
		})
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		block, _ := pem.Decode(pubs[i])
		if block == nil {
			t.Fatalf("caller %d read a public key file without a PEM block: %q", i, pubs[i])
		}
		if _, err := x509.ParsePKIXPublicKey(block.Bytes); err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
		if string(pubs[i]) != string(pubs[0]) {
			t.Fatalf("caller %d saw another key than caller 0", i)
		}
	}
}
