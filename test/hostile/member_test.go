package hostile

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// TestMemberHTTPEndpointRefused: A Cluster whose
// apiEndpoint is http:// used to receive the member's bearer token in clear
// text. The member client cache now refuses it (the error reaches the
// Cluster's Ready condition through the status controller), and a plain
// HTTP listener standing in for the member never sees a request.
func TestMemberHTTPEndpointRefused(t *testing.T) {
	var requests atomic.Int32
	var sawToken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Authorization") != "" {
			sawToken.Store(true)
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "member1"},
		Data: map[string][]byte{"token": []byte("member-token"), "caBundle": []byte("unused")}}
	cluster := func(insecure bool) *clusterv1alpha1.Cluster {
		return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1", UID: "u1"},
			Spec: clusterv1alpha1.ClusterSpec{APIEndpoint: srv.URL, SyncMode: clusterv1alpha1.Push, InsecureSkipTLSVerification: insecure,
				SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "karmada-cluster", Name: "member1"}}}
	}
	reader := fake.NewClientBuilder().WithObjects(secret).Build()
	for _, tc := range []struct {
		name      string
		insecure  bool
		allowHTTP bool
		want      string
	}{
		{"http without insecureSkipTLSVerification", false, true, "use https, or set insecureSkipTLSVerification"},
		{"http with insecureSkipTLSVerification, flag off", true, false, "--allow-http-member-endpoints is off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clients := membercluster.New(reader, membercluster.Options{AllowHTTPEndpoints: tc.allowHTTP})
			m, err := clients.ForCluster(context.Background(), cluster(tc.insecure))
			if !errors.Is(err, membercluster.ErrInsecureEndpoint) {
				if m != nil {
					_, _ = m.Discovery.ServerVersion()
				}
				t.Fatalf("error = %v, want ErrInsecureEndpoint", err)
			}
			wantErr(t, err, "cluster member1: apiEndpoint "+srv.URL, tc.want)
		})
	}
	if requests.Load() != 0 || sawToken.Load() {
		t.Fatalf("the plain HTTP member got %d requests (token seen: %v)", requests.Load(), sawToken.Load())
	}

	// Both opt-ins together: the operator accepted clear text.
	clients := membercluster.New(reader, membercluster.Options{AllowHTTPEndpoints: true})
	m, err := clients.ForCluster(context.Background(), cluster(true))
	if err != nil {
		t.Fatalf("explicitly allowed http endpoint: %v", err)
	}
	_, _ = m.Discovery.ServerVersion()
	if requests.Load() == 0 {
		t.Fatal("the explicitly allowed member was not reached")
	}
}
