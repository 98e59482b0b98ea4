package namespacesync

import (
	"context"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func TestSkip(t *testing.T) {
	s, err := newSkipper([]string{"kube-.*", "tmp[0-9]+"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"karmada-system": true, "karmada-cluster": true, "karmada-es-member1": true, "default": true,
		"kube-system": true, "kube-public": true, "tmp12": true,
		"app": false, "my-kube-app": false, "tmp12x": false, "karmada-apps": false,
	} {
		if got := s.skipName(name); got != want {
			t.Errorf("skipName(%s) = %v, want %v", name, got, want)
		}
	}
	labelled := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app", Labels: map[string]string{"namespace.karmada.io/skip-auto-propagation": "TRUE"}}}
	terminating := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app", DeletionTimestamp: ptr.To(metav1.Now())}}
	plain := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app", Labels: map[string]string{"namespace.karmada.io/skip-auto-propagation": "no"}}}
	if !s.skip(labelled) || !s.skip(terminating) || s.skip(plain) {
		t.Errorf("skip: labelled %v terminating %v plain %v", s.skip(labelled), s.skip(terminating), s.skip(plain))
	}
	if _, err := newSkipper([]string{"("}); err == nil {
		t.Error("invalid regex accepted")
	}
}

func TestSelectedNamespaces(t *testing.T) {
	ns := func(name string) policyv1alpha1.ResourceSelector {
		return policyv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "Namespace", Name: name}
	}
	deploy := policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Name: "x"}
	cases := []struct {
		selectors []policyv1alpha1.ResourceSelector
		named     []string
		all       bool
	}{
		{nil, nil, true},
		{[]policyv1alpha1.ResourceSelector{deploy}, nil, false},
		{[]policyv1alpha1.ResourceSelector{deploy, ns("a"), ns("b")}, []string{"a", "b"}, false},
		{[]policyv1alpha1.ResourceSelector{ns("a"), ns("")}, nil, true},
	}
	for _, c := range cases {
		named, all := selectedNamespaces(c.selectors)
		if all != c.all || len(named) != len(c.named) {
			t.Errorf("%v: %v %v", c.selectors, named, all)
		}
	}
}

type fakeOverrides struct{ applied string }

func (f *fakeOverrides) ApplyClusterOverrides(_ context.Context, obj *unstructured.Unstructured, c *clusterv1alpha1.Cluster) (string, error) {
	if f.applied == "" {
		return "", nil
	}
	labels := obj.GetLabels()
	labels["cluster"] = c.Name
	obj.SetLabels(labels)
	return f.applied, nil
}

func setup(t *testing.T, overrides OverrideApplier, objs ...client.Object) (*Reconciler, *int) {
	t.Helper()
	writes := 0
	count := func() { writes++ }
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			count()
			return c.Create(ctx, o, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			count()
			return c.Update(ctx, o, opts...)
		},
	}).Build()
	r, err := New(Options{Overrides: overrides})
	if err != nil {
		t.Fatal(err)
	}
	r.client, r.reader = c, c
	return r, &writes
}

func TestReconcileWritesWorksOnce(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo", UID: "ns-uid", Labels: map[string]string{"team": "a"}}}
	clusters := []client.Object{
		&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m1"}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}},
		&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m2"}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull}},
	}
	overrides := &fakeOverrides{applied: `[{"policyName":"cop"}]`}
	r, writes := setup(t, overrides, append(clusters, ns)...)
	ctx := context.Background()
	req := ctrl.Request{NamespacedName: client.ObjectKey{Name: "demo"}}
	if _, err := r.Reconcile(ctx, req); err != nil || *writes != 2 {
		t.Fatalf("first reconcile: %d writes, %v", *writes, err)
	}
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: "karmada-es-m2", Name: "demo-6654f4c4f6"}, work); err != nil {
		t.Fatal(err)
	}
	if work.Annotations["policy.karmada.io/applied-cluster-overrides"] != `[{"policyName":"cop"}]` {
		t.Errorf("annotations %v", work.Annotations)
	}
	m := manifestOf(t, work)
	labels := m.GetLabels()
	if labels["cluster"] != "m2" || labels["karmada.io/managed"] != "true" ||
		m.GetAnnotations()["resourcetemplate.karmada.io/managed-labels"] != "cluster,karmada.io/managed,team,work.karmada.io/permanent-id" {
		t.Errorf("manifest labels %v annotations %v", labels, m.GetAnnotations())
	}

	// Unchanged: no write.
	if _, err := r.Reconcile(ctx, req); err != nil || *writes != 2 {
		t.Fatalf("second reconcile: %d writes, %v", *writes, err)
	}
	// A permanent id given by Karmada's webhook is kept: the manifest carries it.
	work.Labels = map[string]string{"work.karmada.io/permanent-id": "w-1"}
	if err := r.client.Update(ctx, work); err != nil {
		t.Fatal(err)
	}
	*writes = 0
	overrides.applied = ""
	if _, err := r.Reconcile(ctx, req); err != nil || *writes != 2 {
		t.Fatalf("overrides gone: %d writes, %v", *writes, err)
	}
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(work), work); err != nil {
		t.Fatal(err)
	}
	m = manifestOf(t, work)
	if _, ok := work.Annotations["policy.karmada.io/applied-cluster-overrides"]; ok || m.GetLabels()["work.karmada.io/permanent-id"] != "w-1" ||
		m.GetAnnotations()["resourcetemplate.karmada.io/managed-labels"] != "karmada.io/managed,team,work.karmada.io/permanent-id" {
		t.Errorf("work annotations %v, manifest labels %v", work.Annotations, m.GetLabels())
	}
}

func TestReconcileSkips(t *testing.T) {
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m1"}}
	deleting := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m2", DeletionTimestamp: ptr.To(metav1.Now()), Finalizers: []string{"x"}}}
	skipped := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "quiet", Labels: map[string]string{"namespace.karmada.io/skip-auto-propagation": "true"}}}
	app := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app"}}
	r, writes := setup(t, nil, cluster, deleting, skipped, app, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}})
	for _, name := range []string{"quiet", "kube-system", "default", "absent"} {
		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	if *writes != 0 {
		t.Fatalf("skipped namespaces wrote %d times", *writes)
	}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: "app"}}); err != nil || *writes != 1 {
		t.Fatalf("app: %d writes (the deleting cluster gets none), %v", *writes, err)
	}
}

func manifestOf(t *testing.T, w *workv1alpha1.Work) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(w.Spec.Workload.Manifests[0].Raw, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// A namespace Work gets its permanent id from the Work writer, as every
// other Work does, also in a control plane without Karmada's Work webhook;
// the manifest carries the same id.
func TestNamespaceWorkGetsPermanentID(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo", UID: "ns-uid"}}
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m1"}}
	r, _ := setup(t, nil, ns, cluster)
	ctx := context.Background()
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "demo"}}); err != nil {
		t.Fatal(err)
	}
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: "karmada-es-m1", Name: "demo-6654f4c4f6"}, work); err != nil {
		t.Fatal(err)
	}
	id := work.Labels["work.karmada.io/permanent-id"]
	if id == "" {
		t.Fatalf("namespace work has no permanent id: labels %v", work.Labels)
	}
	if got := manifestOf(t, work).GetLabels()["work.karmada.io/permanent-id"]; got != id {
		t.Errorf("manifest permanent id %q, work's %q", got, id)
	}
	if len(work.OwnerReferences) != 1 || work.OwnerReferences[0].Kind != "Namespace" || work.OwnerReferences[0].UID != "ns-uid" {
		t.Errorf("owner references %+v", work.OwnerReferences)
	}
}
