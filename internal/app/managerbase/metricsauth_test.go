package managerbase

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"
)

// fakeTokens accepts the tokens in users; errs are returned, one per
// call, before any answer.
type fakeTokens struct {
	users map[string]authenticationv1.UserInfo
	errs  []error
	calls int
}

func (f *fakeTokens) Create(_ context.Context, r *authenticationv1.TokenReview, _ metav1.CreateOptions) (*authenticationv1.TokenReview, error) {
	f.calls++
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return nil, err
	}
	out := r.DeepCopy()
	if u, ok := f.users[r.Spec.Token]; ok {
		out.Status.Authenticated, out.Status.User = true, u
	} else {
		// kube-apiserver says why, without authenticating.
		out.Status.Error = "invalid bearer token"
	}
	return out, nil
}

// fakeAccess allows the users in allowed; it records every review.
type fakeAccess struct {
	allowed map[string]bool
	errs    []error
	reviews []authorizationv1.SubjectAccessReviewSpec
}

func (f *fakeAccess) Create(_ context.Context, r *authorizationv1.SubjectAccessReview, _ metav1.CreateOptions) (*authorizationv1.SubjectAccessReview, error) {
	f.reviews = append(f.reviews, r.Spec)
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return nil, err
	}
	out := r.DeepCopy()
	out.Status.Allowed = f.allowed[r.Spec.User]
	out.Status.Denied = !out.Status.Allowed
	return out, nil
}

type gateFixture struct {
	tokens  *fakeTokens
	access  *fakeAccess
	clock   *clocktesting.FakeClock
	auth    *metricsAuth
	handler http.Handler
	served  int
}

func newGateFixture(t *testing.T) *gateFixture {
	t.Helper()
	f := &gateFixture{
		tokens: &fakeTokens{users: map[string]authenticationv1.UserInfo{
			"scraper-token":  {Username: "system:serviceaccount:monitoring:prometheus", UID: "u1", Groups: []string{"system:serviceaccounts"}, Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/pod-name": {"prometheus-0"}}},
			"stranger-token": {Username: "stranger"},
		}},
		access: &fakeAccess{allowed: map[string]bool{"system:serviceaccount:monitoring:prometheus": true}},
		clock:  clocktesting.NewFakeClock(time.Unix(1000, 0)),
	}
	f.auth = newMetricsAuth(f.tokens, f.access, f.clock)
	f.auth.backoff = wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 5}
	h, err := f.auth.filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		f.served++
		fmt.Fprint(w, "propel_metric 1\n")
	}))
	if err != nil {
		t.Fatal(err)
	}
	f.handler = h
	return f
}

func (f *gateFixture) get(authorization string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}

// TestMetricsGateAnswers: metrics are served only to a caller whose token
// the control plane accepts and who may get /metrics; the others get 401
// or 403 and nothing of the metrics.
func TestMetricsGateAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, authorization string
		code                int
		body                string
	}{
		{"no header", "", http.StatusUnauthorized, "Unauthorized"},
		{"other scheme", "Basic c2NyYXBlcjpwdw==", http.StatusUnauthorized, "Unauthorized"},
		{"empty token", "Bearer ", http.StatusUnauthorized, "Unauthorized"},
		{"token not accepted", "Bearer forged", http.StatusUnauthorized, "Unauthorized"},
		{"authenticated, not allowed", "Bearer stranger-token", http.StatusForbidden, "Authorization denied for user stranger"},
		{"allowed", "bearer scraper-token", http.StatusOK, "propel_metric 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newGateFixture(t)
			rec := f.get(tc.authorization)
			if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.body) {
				t.Fatalf("got %d %q, want %d with %q", rec.Code, rec.Body.String(), tc.code, tc.body)
			}
			if served := tc.code == http.StatusOK; (f.served == 1) != served {
				t.Fatalf("metrics handler called %d times, want served=%v", f.served, served)
			}
		})
	}
}

// TestMetricsGateReviewsWhatKubeAPIServerWould: the access review names
// the user as the token review returned it, with the authenticated group,
// and the request's verb and path as a non-resource URL.
func TestMetricsGateReviewsWhatKubeAPIServerWould(t *testing.T) {
	f := newGateFixture(t)
	if rec := f.get("Bearer scraper-token"); rec.Code != http.StatusOK {
		t.Fatalf("got %d %q", rec.Code, rec.Body.String())
	}
	if len(f.access.reviews) != 1 {
		t.Fatalf("%d access reviews, want 1", len(f.access.reviews))
	}
	got := f.access.reviews[0]
	if got.User != "system:serviceaccount:monitoring:prometheus" || got.UID != "u1" ||
		!slices.Equal(got.Groups, []string{"system:serviceaccounts", "system:authenticated"}) ||
		!slices.Equal(got.Extra["authentication.kubernetes.io/pod-name"], authorizationv1.ExtraValue{"prometheus-0"}) ||
		got.ResourceAttributes != nil || got.NonResourceAttributes == nil ||
		*got.NonResourceAttributes != (authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}) {
		t.Fatalf("access review %+v", got)
	}
}

// TestMetricsGateControlPlaneFailures: a review the control plane cannot
// answer is a 500 naming the step, not a pass; a transient failure is
// retried.
func TestMetricsGateControlPlaneFailures(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"}, "", fmt.Errorf("no"))
	f := newGateFixture(t)
	f.tokens.errs = []error{forbidden}
	if rec := f.get("Bearer scraper-token"); rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "Authentication failed") || f.served != 0 {
		t.Fatalf("token review error: %d %q, served %d", rec.Code, rec.Body.String(), f.served)
	}
	if f.tokens.calls != 1 {
		t.Fatalf("a forbidden token review was tried %d times, want 1", f.tokens.calls)
	}

	f = newGateFixture(t)
	f.access.errs = []error{forbidden}
	if rec := f.get("Bearer scraper-token"); rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "Authorization for user system:serviceaccount:monitoring:prometheus failed") || f.served != 0 {
		t.Fatalf("access review error: %d %q, served %d", rec.Code, rec.Body.String(), f.served)
	}

	f = newGateFixture(t)
	f.tokens.errs = []error{apierrors.NewInternalError(fmt.Errorf("etcd")), apierrors.NewTooManyRequests("slow down", 0)}
	f.access.errs = []error{apierrors.NewTimeoutError("review", 0)}
	if rec := f.get("Bearer scraper-token"); rec.Code != http.StatusOK {
		t.Fatalf("after transient failures: %d %q", rec.Code, rec.Body.String())
	}
	if f.tokens.calls != 3 || len(f.access.reviews) != 2 {
		t.Fatalf("%d token reviews and %d access reviews, want 3 and 2", f.tokens.calls, len(f.access.reviews))
	}
}

// TestMetricsGateCachesAnswers: a scraper polling every few seconds costs
// the control plane one token review a minute and one access review every
// five minutes (30 s for a denial), as kube-apiserver's delegation does.
func TestMetricsGateCachesAnswers(t *testing.T) {
	f := newGateFixture(t)
	for range 3 {
		f.get("Bearer scraper-token")
		f.get("Bearer stranger-token")
		f.get("Bearer forged")
	}
	if f.tokens.calls != 3 || len(f.access.reviews) != 2 {
		t.Fatalf("%d token reviews and %d access reviews for 3 callers, want 3 and 2", f.tokens.calls, len(f.access.reviews))
	}
	f.clock.Step(45 * time.Second)
	f.get("Bearer scraper-token")
	f.get("Bearer stranger-token")
	if f.tokens.calls != 3 || len(f.access.reviews) != 3 {
		t.Fatalf("after 45 s: %d token reviews and %d access reviews, want 3 and 3 (the denial expired)", f.tokens.calls, len(f.access.reviews))
	}
	f.clock.Step(30 * time.Second)
	if rec := f.get("Bearer scraper-token"); rec.Code != http.StatusOK {
		t.Fatalf("got %d", rec.Code)
	}
	if f.tokens.calls != 4 || len(f.access.reviews) != 3 {
		t.Fatalf("after 75 s: %d token reviews and %d access reviews, want 4 and 3", f.tokens.calls, len(f.access.reviews))
	}
}

// TestMetricsGateCachesAreBounded: a caller sending a new token with every
// request evicts answers; it cannot grow the caches.
func TestMetricsGateCachesAreBounded(t *testing.T) {
	f := newGateFixture(t)
	for i := range 3 * reviewCacheSize {
		f.tokens.users[fmt.Sprintf("t%d", i)] = authenticationv1.UserInfo{Username: fmt.Sprintf("user%d", i)}
		f.get(fmt.Sprintf("Bearer t%d", i))
	}
	if n, m := len(f.auth.identities.Keys()), len(f.auth.decisions.Keys()); n > reviewCacheSize || m > reviewCacheSize {
		t.Fatalf("caches hold %d identities and %d decisions, bound %d", n, m, reviewCacheSize)
	}
	if f.tokens.calls != 3*reviewCacheSize {
		t.Fatalf("%d token reviews, want %d", f.tokens.calls, 3*reviewCacheSize)
	}
}
