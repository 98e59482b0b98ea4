// Package membercluster builds clients for member clusters from their
// Cluster objects and credential Secrets (Karmada's Push mode), and caches
// them: a client is created on first use and rebuilt only when the Cluster's
// spec or its Secret changes, or dropped when the Cluster goes away. It also
// runs every informer on member clusters (Informers), with one lifecycle.
package membercluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// RBAC: a member's clients are built from its Cluster and the Secret its
// secretRef names (read through the manager's cache, so listed and watched
// in every namespace: a secretRef may name any namespace, as in Karmada).
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get;list;watch

// Options bound member API usage (Karmada's --cluster-api-qps/-burst).
type Options struct {
	QPS   float32
	Burst int
	// Timeout of member requests; Karmada uses 32s.
	Timeout time.Duration
	// AllowHTTPEndpoints lets a Cluster with an http:// apiEndpoint be
	// reached when it also sets insecureSkipTLSVerification; otherwise
	// such endpoints are refused, since the member's bearer token would
	// travel in clear text.
	AllowHTTPEndpoints bool
}

// Clients hands out cached clients per member cluster.
type Clients struct {
	reader client.Reader
	opts   Options
	mu     sync.Mutex
	byName map[string]*Member
}

// Member is the set of clients of one member cluster.
type Member struct {
	Name   string
	Config *rest.Config
	// Discovery reads the member's API groups and version (and reaches
	// its health endpoints through its REST client). Not client-go's
	// clientset, which would link every API group's client.
	Discovery discovery.DiscoveryInterface
	Dynamic   dynamic.Interface
	// version identifies the Cluster spec and Secret it was built from.
	version string
}

// New returns a client cache reading Clusters and Secrets through reader
// (normally the manager's cache).
func New(reader client.Reader, opts Options) *Clients {
	if opts.QPS == 0 {
		opts.QPS = 40
	}
	if opts.Burst == 0 {
		opts.Burst = 60
	}
	if opts.Timeout == 0 {
		opts.Timeout = 32 * time.Second
	}
	return &Clients{reader: reader, opts: opts, byName: map[string]*Member{}}
}

// ErrNoCredentials marks a Cluster that cannot be reached for lack of an
// endpoint or a usable Secret: a configuration error, not an outage.
var ErrNoCredentials = errors.New("cluster credentials missing")

// Get returns the clients of cluster name, building them when the Cluster
// or its Secret changed since the last call.
func (c *Clients) Get(ctx context.Context, name string) (*Member, error) {
	cluster := &clusterv1alpha1.Cluster{}
	if err := c.reader.Get(ctx, types.NamespacedName{Name: name}, cluster); err != nil {
		return nil, fmt.Errorf("get cluster %s: %w", name, err)
	}
	return c.ForCluster(ctx, cluster)
}

// ForCluster is Get for a Cluster the caller already has.
func (c *Clients) ForCluster(ctx context.Context, cluster *clusterv1alpha1.Cluster) (*Member, error) {
	secret, err := c.secretOf(ctx, cluster)
	if err != nil {
		return nil, err
	}
	version := fmt.Sprintf("%s/%d/%s", cluster.UID, cluster.Generation, secret.ResourceVersion)
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.byName[cluster.Name]; m != nil && m.version == version {
		return m, nil
	}
	if err := CheckEndpoint(cluster, c.opts.AllowHTTPEndpoints); err != nil {
		return nil, err
	}
	cfg, err := RESTConfig(cluster, secret)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst, cfg.Timeout = c.opts.QPS, c.opts.Burst, c.opts.Timeout
	m := &Member{Name: cluster.Name, Config: cfg, version: version}
	if m.Discovery, err = discovery.NewDiscoveryClientForConfig(cfg); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", cluster.Name, err)
	}
	if m.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", cluster.Name, err)
	}
	c.byName[cluster.Name] = m
	return m, nil
}

// Forget drops the clients of a removed cluster.
func (c *Clients) Forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byName, name)
}

func (c *Clients) secretOf(ctx context.Context, cluster *clusterv1alpha1.Cluster) (*corev1.Secret, error) {
	ref := cluster.Spec.SecretRef
	if ref == nil {
		return nil, fmt.Errorf("cluster %s does not have a secret: %w", cluster.Name, ErrNoCredentials)
	}
	secret := &corev1.Secret{}
	if err := c.reader.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, secret); err != nil {
		return nil, fmt.Errorf("cluster %s: secret %s/%s: %w", cluster.Name, ref.Namespace, ref.Name, err)
	}
	return secret, nil
}

// ErrInsecureEndpoint marks a Cluster whose apiEndpoint is plain http and
// is not explicitly allowed to be: a configuration error, not an outage.
var ErrInsecureEndpoint = errors.New("insecure member endpoint refused")

// CheckEndpoint refuses an http:// apiEndpoint (the bearer token would be
// sent in clear text) unless the Cluster sets insecureSkipTLSVerification
// and allowHTTP (the --allow-http-member-endpoints flag) is true.
//
// Difference from Karmada: Karmada connects to any scheme it is given.
func CheckEndpoint(cluster *clusterv1alpha1.Cluster, allowHTTP bool) error {
	u, err := url.Parse(cluster.Spec.APIEndpoint)
	if err != nil {
		return fmt.Errorf("cluster %s: invalid apiEndpoint: %w", cluster.Name, err)
	}
	if !strings.EqualFold(u.Scheme, "http") {
		return nil
	}
	if !cluster.Spec.InsecureSkipTLSVerification {
		return fmt.Errorf("cluster %s: apiEndpoint %s is plain http; use https, or set insecureSkipTLSVerification and run with --allow-http-member-endpoints: %w",
			cluster.Name, u.Redacted(), ErrInsecureEndpoint)
	}
	if !allowHTTP {
		return fmt.Errorf("cluster %s: apiEndpoint %s is plain http and --allow-http-member-endpoints is off: %w",
			cluster.Name, u.Redacted(), ErrInsecureEndpoint)
	}
	return nil
}

// RESTConfig builds the config Karmada derives from a Cluster and its
// Secret: apiEndpoint, bearer token, caBundle unless TLS verification is
// skipped, and proxyURL with proxyHeader sent on CONNECT.
func RESTConfig(cluster *clusterv1alpha1.Cluster, secret *corev1.Secret) (*rest.Config, error) {
	name := cluster.Name
	if cluster.Spec.APIEndpoint == "" {
		return nil, fmt.Errorf("the api endpoint of cluster %s is empty: %w", name, ErrNoCredentials)
	}
	token := string(secret.Data["token"])
	if token == "" {
		return nil, fmt.Errorf("the secret of cluster %s has no token: %w", name, ErrNoCredentials)
	}
	cfg := &rest.Config{Host: cluster.Spec.APIEndpoint, BearerToken: token}
	if cluster.Spec.InsecureSkipTLSVerification {
		cfg.TLSClientConfig.Insecure = true
	} else {
		ca := secret.Data["caBundle"]
		if len(ca) == 0 {
			return nil, fmt.Errorf("the secret of cluster %s has no caBundle: %w", name, ErrNoCredentials)
		}
		cfg.TLSClientConfig.CAData = ca
	}
	if cluster.Spec.ProxyURL != "" {
		proxy, err := url.Parse(cluster.Spec.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: invalid proxyURL %q: %w", name, cluster.Spec.ProxyURL, err)
		}
		cfg.Proxy = http.ProxyURL(proxy)
		if len(cluster.Spec.ProxyHeader) > 0 {
			header := http.Header{}
			for k, v := range cluster.Spec.ProxyHeader {
				for _, part := range strings.Split(v, ",") {
					header.Add(k, strings.TrimSpace(part))
				}
			}
			cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
				if t, ok := rt.(*http.Transport); ok {
					t = t.Clone()
					t.ProxyConnectHeader = header
					return t
				}
				return rt
			})
		}
	}
	return cfg, nil
}
