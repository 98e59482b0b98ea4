package join

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

func TestMemberObjectsAreKarmadactls(t *testing.T) {
	objs := memberObjects(Options{Name: "m1"}.withDefaults())
	var got []string
	for _, o := range objs {
		got = append(got, kindOf(o)+" "+objectName(o))
		if o.GetLabels()["karmada.io/system"] != "true" {
			t.Errorf("%s %s has no karmada.io/system=true label", kindOf(o), objectName(o))
		}
		if s, ok := o.(*corev1.Secret); ok {
			if s.Type != corev1.SecretTypeServiceAccountToken || s.Annotations[corev1.ServiceAccountNameKey] != s.Name {
				t.Errorf("Secret %s: type %q, account %q; want a non-expiring token Secret of ServiceAccount %s",
					s.Name, s.Type, s.Annotations[corev1.ServiceAccountNameKey], s.Name)
			}
		}
	}
	want := []string{
		"Namespace karmada-cluster",
		"ServiceAccount karmada-cluster/karmada-impersonator",
		"Secret karmada-cluster/karmada-impersonator",
		"ServiceAccount karmada-cluster/karmada-m1",
		"ClusterRole karmada-controller-manager:karmada-m1",
		"ClusterRoleBinding karmada-controller-manager:karmada-m1",
		"Secret karmada-cluster/karmada-m1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("member objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMemberObjectsWithExpiringTokensHaveNoTokenSecrets(t *testing.T) {
	for _, o := range memberObjects(Options{Name: "m1", ExpiringTokenTTL: 3600e9, NoImpersonator: true}.withDefaults()) {
		if kindOf(o) == "Secret" || o.GetName() == "karmada-impersonator" {
			t.Errorf("unexpected %s %s", kindOf(o), objectName(o))
		}
	}
}

// TestUnjoinCleansEverythingJoinCreatesInTheMember keeps the two lists in
// step: whatever join adds to the member, unjoin must remove.
func TestUnjoinCleansEverythingJoinCreatesInTheMember(t *testing.T) {
	cleaned := map[string]bool{}
	for _, o := range memberCleanup(UnjoinOptions{Name: "m1", ClusterNamespace: "creds"}) {
		cleaned[kindOf(o)+" "+objectName(o)] = true
	}
	for _, o := range memberObjects(Options{Name: "m1", ClusterNamespace: "creds"}.withDefaults()) {
		if k := kindOf(o) + " " + objectName(o); !cleaned[k] {
			t.Errorf("join creates %s in the member but unjoin does not delete it", k)
		}
	}
}

func TestControlPlaneObjects(t *testing.T) {
	o := Options{Name: "m1", Region: "r", Zones: []string{"z"}}.withDefaults()
	objs, err := controlPlaneObjects(o, &rest.Config{Host: "https://m1:6443"}, "uid-1",
		&credentials{token: []byte("t"), caBundle: []byte("ca"), impersonatorToken: []byte("it")})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 4 {
		t.Fatalf("got %d objects, want namespace, two Secrets and the Cluster", len(objs))
	}
	secret, imp := objs[1].(*corev1.Secret), objs[2].(*corev1.Secret)
	if string(secret.Data["token"]) != "t" || string(secret.Data["caBundle"]) != "ca" || secret.Name != "m1" {
		t.Errorf("credentials Secret %s: %v", secret.Name, secret.Data)
	}
	if string(imp.Data["token"]) != "it" || imp.Name != "m1-impersonator" {
		t.Errorf("impersonator Secret %s: %v", imp.Name, imp.Data)
	}
	c := objs[3].(*clusterv1alpha1.Cluster)
	if c.Spec.ID != "uid-1" || c.Spec.SyncMode != clusterv1alpha1.Push || c.Spec.APIEndpoint != "https://m1:6443" ||
		c.Spec.SecretRef == nil || c.Spec.SecretRef.Name != "m1" || c.Spec.SecretRef.Namespace != "karmada-cluster" ||
		c.Spec.ImpersonatorSecretRef == nil || c.Spec.ImpersonatorSecretRef.Name != "m1-impersonator" ||
		c.Spec.Region != "r" || len(c.Spec.Zones) != 1 {
		t.Errorf("Cluster spec: %+v", c.Spec)
	}
}

func TestPlanWrite(t *testing.T) {
	p := &Plan{
		ControlPlane: []client.Object{&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m1"}}},
		Member:       []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "karmada-cluster"}}},
	}
	var b strings.Builder
	if err := p.Write(&b, "would create"); err != nil {
		t.Fatal(err)
	}
	want := "control plane: would create Cluster m1\nmember: would create Namespace karmada-cluster\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestCheckNotRegistered(t *testing.T) {
	cp := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(
		&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: clusterv1alpha1.ClusterSpec{ID: "uid-a"}},
	).Build()
	ctx := context.Background()
	if err := checkNotRegistered(ctx, cp, "b", "uid-b"); err != nil {
		t.Fatalf("new name and ID: %v", err)
	}
	err := checkNotRegistered(ctx, cp, "b", "uid-a")
	if err == nil || !strings.Contains(err.Error(), "uid-a") || !strings.Contains(err.Error(), "Cluster a") {
		t.Fatalf("same member under another name: %v; want an error naming the ID and Cluster a", err)
	}
	if err := checkNotRegistered(ctx, cp, "a", "uid-c"); err == nil || !strings.Contains(err.Error(), "Cluster a exists") || errors.Is(err, ErrAlreadyJoined) {
		t.Fatalf("taken name: %v", err)
	}
	if err := checkNotRegistered(ctx, cp, "a", "uid-a"); !errors.Is(err, ErrAlreadyJoined) {
		t.Fatalf("the same member under its own name: %v, want ErrAlreadyJoined", err)
	}
	old := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "a"}}).Build()
	if err := checkNotRegistered(ctx, old, "a", "uid-a"); !errors.Is(err, ErrAlreadyJoined) {
		t.Fatalf("a Cluster of the name registered without an ID: %v, want ErrAlreadyJoined", err)
	}
}

func TestValidateClusterName(t *testing.T) {
	for name, ok := range map[string]bool{
		"member1": true, "": false, "Member1": false, "a_b": false,
		strings.Repeat("a", 48): true, strings.Repeat("a", 49): false,
	} {
		if err := validateClusterName(name); (err == nil) != ok {
			t.Errorf("validateClusterName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}
