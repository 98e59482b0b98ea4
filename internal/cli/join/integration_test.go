package join_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/join"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/cluster/lifecycle"
	"github.com/propel-mc/propel/internal/shared/index"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestJoinThenUnjoin joins a member that runs kube-controller-manager (its
// token controller fills in the token Secrets), with Propel's cluster
// controller running on the control plane, then unjoins it.
func TestJoinThenUnjoin(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	env := harness.StartT(t, harness.Options{NoJoin: true, Members: []localenv.MemberOptions{{Name: "member1", Workloads: true}}})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if _, err := harness.RunManager(ctx, env.ControllerManagerConfig(), func(mgr ctrl.Manager) error {
		if err := index.AddDefaultIndexes(context.Background(), mgr); err != nil {
			return err
		}
		return lifecycle.New(lifecycle.Options{RemovalPollInterval: 500 * time.Millisecond}).SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}
	member := env.Member("member1")
	mc, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	cp := env.Client
	name := "m1"

	// --dry-run creates nothing.
	plan, err := join.PlanJoin(ctx, env.ControlPlane.Config, member.Config, join.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := plan.Write(&out, "would create"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "member: would create Secret karmada-cluster/karmada-m1") ||
		!strings.Contains(out.String(), "control plane: would create Cluster m1") {
		t.Errorf("dry-run plan:\n%s", out.String())
	}
	if err := mc.Get(ctx, client.ObjectKey{Name: "karmada-cluster"}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after --dry-run the member's karmada-cluster namespace: %v, want not found", err)
	}

	cluster, err := join.Join(ctx, env.ControlPlane.Config, member.Config, join.Options{Name: name, TokenWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	kubeSystem := &corev1.Namespace{}
	if err := mc.Get(ctx, client.ObjectKey{Name: "kube-system"}, kubeSystem); err != nil {
		t.Fatal(err)
	}
	if cluster.Spec.ID == "" || cluster.Spec.ID != string(kubeSystem.UID) {
		t.Errorf("Cluster spec.id %q, want the member's kube-system UID %s", cluster.Spec.ID, kubeSystem.UID)
	}
	if ref := cluster.Spec.ImpersonatorSecretRef; ref == nil || ref.Namespace != "karmada-cluster" || ref.Name != name+"-impersonator" {
		t.Errorf("Cluster impersonatorSecretRef %+v", ref)
	}
	// The token in the control plane is the member's token Secret's, and
	// it has no expiry.
	tokenSecret := &corev1.Secret{}
	if err := mc.Get(ctx, client.ObjectKey{Namespace: "karmada-cluster", Name: "karmada-" + name}, tokenSecret); err != nil {
		t.Fatal(err)
	}
	if tokenSecret.Type != corev1.SecretTypeServiceAccountToken {
		t.Errorf("member Secret type %q", tokenSecret.Type)
	}
	cpSecret := &corev1.Secret{}
	if err := cp.Get(ctx, client.ObjectKey{Namespace: "karmada-cluster", Name: name}, cpSecret); err != nil {
		t.Fatal(err)
	}
	if string(cpSecret.Data["token"]) != string(tokenSecret.Data["token"]) || len(cpSecret.Data["caBundle"]) == 0 {
		t.Errorf("control plane Secret does not carry the member token Secret's token and a CA bundle")
	}
	assertNoExpiry(t, cpSecret.Data["token"])
	if len(cpSecret.OwnerReferences) != 1 || cpSecret.OwnerReferences[0].UID != cluster.UID {
		t.Errorf("control plane Secret owners %+v, want Cluster %s", cpSecret.OwnerReferences, name)
	}
	for _, o := range []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "karmada-impersonator"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "karmada-impersonator"}},
	} {
		if err := mc.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Errorf("member impersonator: %v", err)
		}
	}
	impSecret := &corev1.Secret{}
	if err := cp.Get(ctx, client.ObjectKey{Namespace: "karmada-cluster", Name: name + "-impersonator"}, impSecret); err != nil || len(impSecret.Data["token"]) == 0 {
		t.Errorf("control plane impersonator Secret: %v, token %d bytes", err, len(impSecret.Data["token"]))
	}

	// The same member under a second name is refused, naming the first.
	_, err = join.Join(ctx, env.ControlPlane.Config, member.Config, join.Options{Name: "m1-again", TokenWait: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "already registered as Cluster "+name) {
		t.Fatalf("second join of the same member: %v, want a refusal naming Cluster %s", err, name)
	}
	if err := cp.Get(ctx, client.ObjectKey{Name: "m1-again"}, &clusterv1alpha1.Cluster{}); !apierrors.IsNotFound(err) {
		t.Fatalf("refused Cluster m1-again: %v, want not found", err)
	}

	// Hold the execution namespace: unjoin must wait for it, and time out
	// with the Cluster still there.
	execSpace := "karmada-es-" + name
	harness.Eventually(t, "execution namespace created", func(ctx context.Context) (bool, error) {
		err := cp.Get(ctx, client.ObjectKey{Name: execSpace}, &corev1.Namespace{})
		return err == nil, client.IgnoreNotFound(err)
	})
	hold := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: execSpace, Name: "hold", Finalizers: []string{"test.propel.io/hold"}}}
	if err := cp.Create(ctx, hold); err != nil {
		t.Fatal(err)
	}
	err = join.Unjoin(ctx, env.ControlPlane.Config, member.Config, join.UnjoinOptions{Name: name, Wait: 3 * time.Second, PollInterval: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "timed out") || !strings.Contains(err.Error(), execSpace) {
		t.Fatalf("unjoin while the execution namespace is held: %v, want a timeout naming %s", err, execSpace)
	}
	if err := cp.Get(ctx, client.ObjectKey{Name: name}, &clusterv1alpha1.Cluster{}); err != nil {
		t.Fatalf("Cluster after the timed-out unjoin: %v, want it kept until its execution namespace is gone", err)
	}
	if err := mc.Get(ctx, client.ObjectKey{Namespace: "karmada-cluster", Name: "karmada-" + name}, &corev1.ServiceAccount{}); err != nil {
		t.Fatalf("a timed-out unjoin touched the member: %v", err)
	}
	hold.Finalizers = nil
	if err := cp.Update(ctx, hold); err != nil {
		t.Fatal(err)
	}

	if err := join.Unjoin(ctx, env.ControlPlane.Config, member.Config, join.UnjoinOptions{Name: name, Wait: 2 * time.Minute, PollInterval: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{
		&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: execSpace}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: name}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: name + "-impersonator"}},
	} {
		if err := cp.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
			t.Errorf("control plane %T %s after unjoin: %v, want not found", o, o.GetName(), err)
		}
	}
	for _, o := range []client.Object{
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "karmada-controller-manager:karmada-" + name}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "karmada-controller-manager:karmada-" + name}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "karmada-" + name}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "karmada-" + name}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "karmada-impersonator"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "karmada-impersonator"}},
	} {
		if err := mc.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
			t.Errorf("member %T %s after unjoin: %v, want not found", o, o.GetName(), err)
		}
	}
	// The member's namespace controller finishes the namespace.
	harness.Eventually(t, "member karmada-cluster namespace removed", func(ctx context.Context) (bool, error) {
		err := mc.Get(ctx, client.ObjectKey{Name: "karmada-cluster"}, &corev1.Namespace{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}, harness.Timeout(time.Minute))

	// Unjoining again names the missing Cluster.
	if err := join.Unjoin(ctx, env.ControlPlane.Config, nil, join.UnjoinOptions{Name: name}); err == nil || !strings.Contains(err.Error(), "no Cluster "+name) {
		t.Errorf("unjoin of a missing Cluster: %v", err)
	}
}

// assertNoExpiry fails when the JWT token carries an exp claim, as
// TokenRequest tokens do.
func assertNoExpiry(t *testing.T, token []byte) {
	t.Helper()
	parts := strings.Split(string(token), ".")
	if len(parts) != 3 {
		t.Fatalf("token is not a JWT (%d parts)", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("token payload: %v", err)
	}
	claims := map[string]any{}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatalf("token claims: %v", err)
	}
	if exp, ok := claims["exp"]; ok {
		t.Errorf("token expires (exp=%v); want a token without expiry", exp)
	}
	if claims["kubernetes.io/serviceaccount/service-account.name"] == nil && claims["sub"] == nil {
		t.Errorf("token claims %v name no ServiceAccount", claims)
	}
}
