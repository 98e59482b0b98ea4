package membercluster

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
