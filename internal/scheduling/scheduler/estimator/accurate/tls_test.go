package accurate

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clientfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/scheduling/estimatorserver"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// writeCert issues a certificate signed by ca (self-signed when ca is nil)
// and writes it and its key as PEM files in dir.
func writeCert(t *testing.T, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, ip net.IP) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	}
	parent, signer := tmpl, key
	if ca == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	} else {
		parent, signer = ca, caKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	return cert, key
}

// TestMutualTLS: with Karmada's client flags (CA, cert, key) the client
// reaches an estimator that requires client certificates; without a
// client certificate, or trusting another CA, the estimator has no
// opinion.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ip := loopbackIPs(1)[0]
	ca, caKey := writeCert(t, dir, "ca", nil, nil, nil)
	writeCert(t, dir, "server", ca, caKey, net.ParseIP(ip))
	writeCert(t, dir, "client", ca, caKey, nil)
	writeCert(t, dir, "other-ca", nil, nil, nil)

	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")}
	est := estimatorserver.New("m1", fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Allocatable: rl}}))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := est.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := estimatorserver.NewGRPCServer(est, estimatorserver.TLSFiles{
		CertFile: filepath.Join(dir, "server.crt"), KeyFile: filepath.Join(dir, "server.key"), ClientCAFile: filepath.Join(dir, "ca.crt"),
	})
	if err != nil {
		t.Fatal(err)
	}
	lis, port := listenSamePort(t, []string{ip})
	go func() { _ = srv.Serve(lis[0]) }()
	t.Cleanup(srv.Stop)
	reader := clientfake.NewClientBuilder().WithObjects(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-system", Name: "karmada-scheduler-estimator-m1"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: ip},
	}).Build()
	req := &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}

	for _, tc := range []struct {
		name          string
		ca, cert, key string
		want          int32
		wantErr       bool
	}{
		{"mutual TLS", "ca.crt", "client.crt", "client.key", 4, false},
		{"no client certificate", "ca.crt", "", "", 0, true},
		{"server not trusted", "other-ca.crt", "client.crt", "client.key", 0, true},
		{"missing CA file", "absent.crt", "client.crt", "client.key", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := *NewOptions()
			opts.Enabled, opts.Port, opts.Timeout = true, port, 5*time.Second
			opts.CAFile = filepath.Join(dir, tc.ca)
			if tc.cert != "" {
				opts.CertFile, opts.KeyFile = filepath.Join(dir, tc.cert), filepath.Join(dir, tc.key)
			}
			c := New(opts, reader, testr.New(t))
			callCtx, done := context.WithTimeout(ctx, 5*time.Second)
			defer done()
			n, err := c.MaxAvailableReplicas(callCtx, "m1", req)
			if (err != nil) != tc.wantErr || n != tc.want {
				t.Errorf("got %d, %v; want %d, error %v", n, err, tc.want, tc.wantErr)
			}
		})
	}
}
