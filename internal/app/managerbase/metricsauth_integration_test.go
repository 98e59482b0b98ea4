package managerbase_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/test/harness"
)

// TestSecureMetricsThroughControlPlane serves a handler behind the filter
// --metrics-secure installs, running as Propel's own identity against a
// real kube-apiserver: a ServiceAccount bound to get /metrics reads the
// metrics; a ServiceAccount without the binding gets 403; a request
// without a token, or with a token the API server did not issue, gets 401
// and never reaches the metrics.
func TestSecureMetricsThroughControlPlane(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoJoin: true, NoControlPlaneControllers: true})
	ctx := context.Background()
	scraper := serviceAccountToken(ctx, t, env, "metrics-scraper")
	stranger := serviceAccountToken(ctx, t, env, "metrics-stranger")
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}
	if _, err := env.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: metav1.NamespaceDefault, Name: "metrics-scraper"}}}
	if _, err := env.Kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	s := managerbase.Serving{MetricsBindAddress: "127.0.0.1:0", MetricsSecure: true}
	opts := s.MetricsOptions()
	if !opts.SecureServing || opts.FilterProvider == nil {
		t.Fatalf("--metrics-secure: %+v", opts)
	}
	cfg := env.ControllerManager.Config
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	filter, err := opts.FilterProvider(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int32
	handler, err := filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		fmt.Fprint(w, "propel_metric 1\n")
	}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		name, token string
		code        int
		body        string
	}{
		{"no token", "", http.StatusUnauthorized, "Unauthorized"},
		{"token not issued by the control plane", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", http.StatusUnauthorized, "Unauthorized"},
		{"service account without the role", stranger, http.StatusForbidden, "Authorization denied for user system:serviceaccount:default:metrics-stranger"},
		{"service account with the role", scraper, http.StatusOK, "propel_metric 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := served.Load()
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code || !strings.Contains(string(body), tc.body) {
				t.Fatalf("got %d %q, want %d with %q", resp.StatusCode, body, tc.code, tc.body)
			}
			if got, want := served.Load()-before, map[bool]int32{true: 1, false: 0}[tc.code == http.StatusOK]; got != want {
				t.Fatalf("metrics served %d times, want %d", got, want)
			}
		})
	}
}

// serviceAccountToken creates ServiceAccount name in the default
// namespace and returns a token the API server issues for it.
func serviceAccountToken(ctx context.Context, t *testing.T, env *harness.Env, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault}}
	if _, err := env.Kube.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := env.Kube.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s: %v", name, err)
	}
	return tr.Status.Token
}
