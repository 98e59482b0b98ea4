package webhook

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// hookClient is the pooled HTTPS client of one clientConfig. err is set
// when the clientConfig cannot be used; every call then fails with it.
type hookClient struct {
	endpoint *url.URL
	http     *http.Client
	err      error
}

// clientKey identifies a clientConfig: url, service and caBundle.
func clientKey(cc admissionregistrationv1.WebhookClientConfig) string {
	b, err := json.Marshal(cc)
	if err != nil {
		// A WebhookClientConfig always marshals; keep a distinct key anyway.
		return "unmarshalable:" + err.Error()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func newHookClient(cc admissionregistrationv1.WebhookClientConfig, services client.Reader) *hookClient {
	endpoint, dial, err := endpointFor(cc, services)
	if err != nil {
		return &hookClient{err: err}
	}
	tlsConfig, err := tlsConfigFor(cc.CABundle)
	if err != nil {
		return &hookClient{err: err}
	}
	return &hookClient{endpoint: endpoint, http: newHTTPClient(tlsConfig, dial)}
}

// endpointFor returns the URL to post to and, for a Service, the dialer
// that resolves it. The Service wins when both are set, as in Karmada.
func endpointFor(cc admissionregistrationv1.WebhookClientConfig, services client.Reader) (*url.URL, dialFunc, error) {
	if svc := cc.Service; svc != nil {
		port := int32(443)
		if svc.Port != nil {
			port = *svc.Port
		}
		u := &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Name+"."+svc.Namespace+".svc", strconv.Itoa(int(port)))}
		if svc.Path != nil {
			u.Path = *svc.Path
		}
		r := &serviceResolver{reader: services, namespace: svc.Namespace, name: svc.Name, port: port}
		return u, r.dial, nil
	}
	if cc.URL == nil || *cc.URL == "" {
		return nil, nil, errors.New("clientConfig has neither url nor service")
	}
	u, err := url.Parse(*cc.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid clientConfig.url: %w", err)
	}
	if u.Scheme != "https" {
		return nil, nil, fmt.Errorf("clientConfig.url scheme must be https, got %q", u.Scheme)
	}
	return u, nil, nil
}

// tlsConfigFor trusts caBundle alone when it is set, else the system roots.
// A caBundle names the authority that signed the webhook's certificate;
// adding it to the system roots would also accept any certificate a public
// CA issued for the webhook's name.
func tlsConfigFor(caBundle []byte) (*tls.Config, error) {
	if len(caBundle) == 0 {
		// nil RootCAs: crypto/tls uses the system roots.
		return &tls.Config{MinVersion: tls.VersionTLS12}, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caBundle) {
		return nil, errors.New("clientConfig.caBundle holds no PEM certificate")
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// newHTTPClient pools connections (keep-alive) and speaks HTTP/2 when the
// server offers it; HTTP/2 connections are health-checked with pings.
// Redirects are not followed: a webhook answers or fails.
func newHTTPClient(tlsConfig *tls.Config, dial dialFunc) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	t := &http.Transport{
		TLSClientConfig:     tlsConfig,
		DialContext:         dialer.DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		HTTP2:               &http.HTTP2Config{SendPingTimeout: 30 * time.Second, PingTimeout: 15 * time.Second},
	}
	if dial != nil {
		t.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			addr, err := dial(ctx)
			if err != nil {
				return nil, err
			}
			return dialer.DialContext(ctx, network, addr)
		}
	}
	return &http.Client{
		Transport:     t,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// close drops the idle connections of a client no configuration uses.
func (c *hookClient) close() {
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
}
