package webhooktest

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Server is a loopback HTTPS server whose certificate is signed by CA.
type Server struct {
	*httptest.Server
	CA *CA
}

// NewServer starts an HTTPS server (HTTP/2 enabled) on 127.0.0.1 with a
// certificate for hosts (default "127.0.0.1") signed by a fresh CA. It is
// closed when the test ends.
func NewServer(t testing.TB, h http.Handler, hosts ...string) *Server {
	t.Helper()
	ca, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	return NewServerWithCA(t, ca, h, hosts...)
}

// NewServerWithCA is NewServer with a given CA.
func NewServerWithCA(t testing.TB, ca *CA, h http.Handler, hosts ...string) *Server {
	t.Helper()
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1"}
	}
	cert, err := ca.ServingCert(hosts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &Server{Server: srv, CA: ca}
}
