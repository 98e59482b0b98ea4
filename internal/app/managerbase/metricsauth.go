package managerbase

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The callers of --metrics-secure are authenticated and authorized the
// way kube-apiserver delegates both (and controller-runtime's filter did
// it): the bearer token by a TokenReview, then the request's verb on its
// path by a SubjectAccessReview, both answered by the control plane and
// cached with the same lifetimes. This filter is Propel's own because
// controller-runtime's builds those reviews with k8s.io/apiserver's
// authenticator and authorizer factories, which link CEL, OpenTelemetry's
// gRPC exporter and the konnectivity client into the binary whether the
// flag is on or not.
const (
	// identityTTL is how long a token's review (accepted or not) is reused.
	identityTTL = time.Minute
	// allowTTL and denyTTL are how long an access decision is reused.
	allowTTL = 5 * time.Minute
	denyTTL  = 30 * time.Second
	// reviewTimeout bounds each review request.
	reviewTimeout = 10 * time.Second
	// reviewCacheSize bounds each cache by count: scrapers are a handful of
	// identities, and a caller cycling through tokens evicts older answers
	// instead of growing the process.
	reviewCacheSize = 1024
	// authenticatedGroup is the group kube-apiserver adds to every
	// authenticated user, which RBAC bindings name.
	authenticatedGroup = "system:authenticated"
)

// reviewBackoff retries a review that failed on a transient error, as
// kube-apiserver's delegated authentication and authorization do.
var reviewBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}

// tokenReviewer and accessReviewer are the Create of client-go's typed
// TokenReview and SubjectAccessReview clients.
type tokenReviewer interface {
	Create(ctx context.Context, review *authenticationv1.TokenReview, opts metav1.CreateOptions) (*authenticationv1.TokenReview, error)
}

type accessReviewer interface {
	Create(ctx context.Context, review *authorizationv1.SubjectAccessReview, opts metav1.CreateOptions) (*authorizationv1.SubjectAccessReview, error)
}

// metricsAuth gates the metrics endpoint behind the control plane's
// authentication and authorization.
type metricsAuth struct {
	tokens  tokenReviewer
	access  accessReviewer
	backoff wait.Backoff
	// identities maps the SHA-256 of a token to its *UserInfo, nil when
	// the control plane did not accept it; tokens are not kept.
	identities *cache.LRUExpireCache
	// decisions maps a review's spec, as JSON, to whether it was allowed.
	decisions *cache.LRUExpireCache
}

func newMetricsAuth(tokens tokenReviewer, access accessReviewer, clock cache.Clock) *metricsAuth {
	return &metricsAuth{
		tokens: tokens, access: access, backoff: reviewBackoff,
		identities: cache.NewLRUExpireCacheWithClock(reviewCacheSize, clock),
		decisions:  cache.NewLRUExpireCacheWithClock(reviewCacheSize, clock),
	}
}

// authenticatedMetrics is the FilterProvider of --metrics-secure: reviews
// go through the manager's HTTP client to the API server it talks to.
func authenticatedMetrics(config *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	authn, err := authenticationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("secure metrics: tokenreview client: %w", err)
	}
	authz, err := authorizationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("secure metrics: subjectaccessreview client: %w", err)
	}
	a := newMetricsAuth(authn.TokenReviews(), authz.SubjectAccessReviews(), clock.RealClock{})
	return a.filter, nil
}

// filter is a metricsserver.Filter: 401 without an accepted bearer token,
// 403 when the caller may not use the request's verb on its path, 500
// when the control plane could not answer.
func (a *metricsAuth) filter(log logr.Logger, next http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		token, ok := bearerToken(req)
		if !ok {
			log.V(4).Info("no bearer token", "path", req.URL.Path)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		user, err := a.authenticate(req.Context(), token)
		if err != nil {
			log.Error(err, "authentication failed", "path", req.URL.Path)
			http.Error(w, "Authentication failed", http.StatusInternalServerError)
			return
		}
		if user == nil {
			log.V(4).Info("token not accepted", "path", req.URL.Path)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		allowed, err := a.authorize(req.Context(), user, strings.ToLower(req.Method), req.URL.Path)
		if err != nil {
			msg := fmt.Sprintf("Authorization for user %s failed", user.Username)
			log.Error(err, "authorization failed", "user", user.Username, "path", req.URL.Path)
			http.Error(w, msg, http.StatusInternalServerError)
			return
		}
		if !allowed {
			log.V(4).Info("access denied", "user", user.Username, "path", req.URL.Path)
			http.Error(w, fmt.Sprintf("Authorization denied for user %s", user.Username), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, req)
	}), nil
}

// bearerToken is the token of an "Authorization: Bearer <token>" header,
// read as kube-apiserver reads it (scheme in any case, one space).
func bearerToken(req *http.Request) (string, bool) {
	parts := strings.SplitN(strings.TrimSpace(req.Header.Get("Authorization")), " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") || parts[1] == "" {
		return "", false
	}
	return parts[1], true
}

// authenticate returns who token belongs to, with the authenticated
// group, or nil when the control plane does not accept it.
func (a *metricsAuth) authenticate(ctx context.Context, token string) (*authenticationv1.UserInfo, error) {
	key := sha256.Sum256([]byte(token))
	if v, ok := a.identities.Get(key); ok {
		return v.(*authenticationv1.UserInfo), nil
	}
	var got *authenticationv1.TokenReview
	err := a.retry(ctx, func(ctx context.Context) (err error) {
		got, err = a.tokens.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tokenreview: %w", err)
	}
	var user *authenticationv1.UserInfo
	if got.Status.Authenticated {
		user = got.Status.User.DeepCopy()
		user.Groups = withAuthenticatedGroup(user.Username, user.Groups)
	}
	a.identities.Add(key, user, identityTTL)
	return user, nil
}

// withAuthenticatedGroup adds system:authenticated to groups, unless the
// user is anonymous or already in it, as kube-apiserver does.
func withAuthenticatedGroup(username string, groups []string) []string {
	if username == "system:anonymous" {
		return groups
	}
	for _, g := range groups {
		if g == authenticatedGroup || g == "system:unauthenticated" {
			return groups
		}
	}
	return append(groups, authenticatedGroup)
}

// authorize asks whether user may use verb on the non-resource path.
func (a *metricsAuth) authorize(ctx context.Context, user *authenticationv1.UserInfo, verb, path string) (bool, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups,
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
	}
	if len(user.Extra) > 0 {
		spec.Extra = make(map[string]authorizationv1.ExtraValue, len(user.Extra))
		for k, v := range user.Extra {
			spec.Extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return false, fmt.Errorf("subjectaccessreview for user %q: %w", user.Username, err)
	}
	key := string(raw)
	if v, ok := a.decisions.Get(key); ok {
		return v.(bool), nil
	}
	var got *authorizationv1.SubjectAccessReview
	err = a.retry(ctx, func(ctx context.Context) (err error) {
		got, err = a.access.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return false, fmt.Errorf("subjectaccessreview for user %q: %w", user.Username, err)
	}
	ttl := denyTTL
	if got.Status.Allowed {
		ttl = allowTTL
	}
	a.decisions.Add(key, got.Status.Allowed, ttl)
	return got.Status.Allowed, nil
}

// retry calls review, each attempt within reviewTimeout, again after
// transient failures (connection lost, 500, timeouts, 429 or a
// Retry-After) while the backoff allows.
func (a *metricsAuth) retry(ctx context.Context, review func(context.Context) error) error {
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, a.backoff, func(ctx context.Context) (bool, error) {
		attempt, cancel := context.WithTimeout(ctx, reviewTimeout)
		defer cancel()
		last = review(attempt)
		switch {
		case last == nil:
			return true, nil
		case transient(last):
			return false, nil
		default:
			return false, last
		}
	})
	if err != nil && wait.Interrupted(err) && last != nil {
		return last
	}
	return err
}

func transient(err error) bool {
	if utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	_, delay := apierrors.SuggestsClientDelay(err)
	return delay
}
