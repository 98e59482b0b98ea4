package membercluster

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

func TestRESTConfig(t *testing.T) {
	secret := &corev1.Secret{Data: map[string][]byte{"token": []byte("t0k"), "caBundle": []byte("ca")}}
	cluster := func(mut func(*clusterv1alpha1.ClusterSpec)) *clusterv1alpha1.Cluster {
		c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"},
			Spec: clusterv1alpha1.ClusterSpec{APIEndpoint: "https://127.0.0.1:6443", SyncMode: clusterv1alpha1.Push}}
		if mut != nil {
			mut(&c.Spec)
		}
		return c
	}
	cfg, err := RESTConfig(cluster(nil), secret)
	if err != nil || cfg.BearerToken != "t0k" || string(cfg.CAData) != "ca" || cfg.Insecure {
		t.Fatalf("config %+v, %v", cfg, err)
	}
	if cfg, err := RESTConfig(cluster(func(s *clusterv1alpha1.ClusterSpec) { s.InsecureSkipTLSVerification = true }),
		&corev1.Secret{Data: map[string][]byte{"token": []byte("t")}}); err != nil || !cfg.Insecure {
		t.Fatalf("insecure: %+v, %v", cfg, err)
	}
	if _, err := RESTConfig(cluster(func(s *clusterv1alpha1.ClusterSpec) { s.APIEndpoint = "" }), secret); !errors.Is(err, ErrNoCredentials) {
		t.Errorf("empty endpoint: %v", err)
	}
	if _, err := RESTConfig(cluster(nil), &corev1.Secret{Data: map[string][]byte{"caBundle": []byte("ca")}}); !errors.Is(err, ErrNoCredentials) {
		t.Errorf("no token: %v", err)
	}
	if _, err := RESTConfig(cluster(nil), &corev1.Secret{Data: map[string][]byte{"token": []byte("t")}}); !errors.Is(err, ErrNoCredentials) {
		t.Errorf("no caBundle: %v", err)
	}
	if cfg, err := RESTConfig(cluster(func(s *clusterv1alpha1.ClusterSpec) { s.ProxyURL = "socks5://127.0.0.1:1080" }), secret); err != nil || cfg.Proxy == nil {
		t.Errorf("proxy: %v", err)
	}
	if _, err := RESTConfig(cluster(func(s *clusterv1alpha1.ClusterSpec) { s.ProxyURL = "://bad" }), secret); err == nil {
		t.Error("invalid proxy accepted")
	}
}

func TestCheckEndpoint(t *testing.T) {
	cluster := func(endpoint string, insecure bool) *clusterv1alpha1.Cluster {
		return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"},
			Spec: clusterv1alpha1.ClusterSpec{APIEndpoint: endpoint, InsecureSkipTLSVerification: insecure}}
	}
	cases := []struct {
		endpoint  string
		insecure  bool
		allowHTTP bool
		want      string // "" means allowed
	}{
		{"https://127.0.0.1:6443", false, false, ""},
		{"https://127.0.0.1:6443", true, false, ""},
		{"http://127.0.0.1:8080", false, false, "use https, or set insecureSkipTLSVerification and run with --allow-http-member-endpoints"},
		{"http://127.0.0.1:8080", false, true, "use https, or set insecureSkipTLSVerification"},
		{"HTTP://127.0.0.1:8080", true, false, "--allow-http-member-endpoints is off"},
		{"http://user:secret@127.0.0.1:8080", true, false, "http://user:xxxxx@127.0.0.1:8080"},
		{"http://127.0.0.1:8080", true, true, ""},
	}
	for _, tc := range cases {
		err := CheckEndpoint(cluster(tc.endpoint, tc.insecure), tc.allowHTTP)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s insecure=%v allow=%v: %v", tc.endpoint, tc.insecure, tc.allowHTTP, err)
			}
			continue
		}
		if !errors.Is(err, ErrInsecureEndpoint) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cluster member1: ") {
			t.Errorf("%s insecure=%v allow=%v: error %v, want %q", tc.endpoint, tc.insecure, tc.allowHTTP, err, tc.want)
		}
	}
}

// TestForClusterRefusesHTTP: the client cache refuses an http:// endpoint
// before building a client (the token never leaves the process).
func TestForClusterRefusesHTTP(t *testing.T) {
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"},
		Spec: clusterv1alpha1.ClusterSpec{APIEndpoint: "http://127.0.0.1:8080", SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "karmada-cluster", Name: "member1"}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "member1"}, Data: map[string][]byte{"token": []byte("t0k"), "caBundle": []byte("ca")}}
	c := New(fake.NewClientBuilder().WithObjects(secret).Build(), Options{})
	if _, err := c.ForCluster(context.Background(), cluster); !errors.Is(err, ErrInsecureEndpoint) {
		t.Fatalf("ForCluster(http) error = %v, want ErrInsecureEndpoint", err)
	}
}
