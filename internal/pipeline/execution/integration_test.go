package execution_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

const (
	settle = 90 * time.Second
	// pods need the member's scheduler, kwok and the default ServiceAccount.
	podsReady = 3 * time.Minute
)

// nginxCase is the worked example: one template, a binding to member1 (2
// replicas) and member2 (1 replica), and the two Works.
type nginxCase struct {
	template *unstructured.Unstructured
	binding  *workv1alpha2.ResourceBinding
	works    map[string]*workv1alpha1.Work
}

func setupNginx(t *testing.T) *nginxCase {
	ctx := context.Background()
	c := &nginxCase{works: map[string]*workv1alpha1.Work{}}
	c.template = createTemplate(t, nginxDeployment("nginx", nil))
	rbID := uuid.NewString()
	c.binding = createBinding(t, c.template, rbID, []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 1}})
	for cluster, replicas := range map[string]int64{"member1": 2, "member2": 1} {
		w := buildWork(t, workSpec{cluster: cluster, template: c.template, bindingID: rbID, bindingName: c.binding.Name, mutate: setReplicas(replicas)})
		must(t, env.Client.Create(ctx, w))
		c.works[cluster] = w
	}
	return c
}

func TestExecutionAndStatus(t *testing.T) {
	prepareControlPlane(t)
	ctrls := startControllers(t)
	defer func() { ctrls.stop() }()
	nginx := setupNginx(t)
	m1, m2 := memberClient(t, "member1"), memberClient(t, "member2")

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"applies to members", func(t *testing.T) { testApplied(t, nginx, m1, m2) }},
		{"reflects member status", func(t *testing.T) { testReflected(t, nginx) }},
		{"aggregates binding and template status", func(t *testing.T) { testAggregated(t, nginx, m1, m2) }},
		{"write count of the first sync", func(t *testing.T) { testFirstSyncWrites(t, ctrls) }},
		{"write count for three clusters", func(t *testing.T) { testThreeClusterWrites(t, ctrls, m1) }},
		{"unchanged work writes nothing", func(t *testing.T) {
			ctrls = testRestartWritesNothing(t, ctrls, nginx, m1)
		}},
		{"drift is reverted", func(t *testing.T) { testDrift(t, m1) }},
		{"retain keeps member-owned fields", func(t *testing.T) { testRetain(t, m1, m2) }},
		{"conflict resolution", func(t *testing.T) { testConflict(t, m2) }},
		{"suspend dispatching", func(t *testing.T) { testSuspend(t, nginx, m1) }},
		{"work deletion", func(t *testing.T) { testDeletion(t, m1) }},
		{"cluster-scoped object and binding", func(t *testing.T) { testClusterScoped(t, memberClient(t, "member3")) }},
		{"member outage loses nothing", func(t *testing.T) { testOutage(t, nginx, m2) }},
		{"cluster readiness and removal", func(t *testing.T) { testClusterLifecycle(t, ctrls, memberClient(t, "member3")) }},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			t.FailNow()
		}
	}
}

func testApplied(t *testing.T, nginx *nginxCase, m1, m2 client.Client) {
	for cluster, mc := range map[string]client.Client{"member1": m1, "member2": m2} {
		w := nginx.works[cluster]
		harness.Eventually(t, cluster+" deployment", func(ctx context.Context) (bool, error) {
			d, err := memberDeployment(ctx, mc, "nginx")
			if err != nil {
				return false, err
			}
			l, a := d.Labels, d.Annotations
			return l[names.ManagedLabel] == names.TrueValue && l[names.ResourceBindingPermanentIDLabel] == nginx.binding.Labels[names.ResourceBindingPermanentIDLabel] &&
				l[names.WorkPermanentIDLabel] == w.Labels[names.WorkPermanentIDLabel] &&
				a[names.WorkNamespaceAnnotation] == w.Namespace && a[names.WorkNameAnnotation] == w.Name &&
				a[names.ResourceTemplateUIDAnnotation] == string(nginx.template.GetUID()) &&
				strings.Contains(a[names.ManagedLabelsAnnotation], names.ManagedLabel), nil
		}, harness.Timeout(settle))
		harness.Eventually(t, cluster+" work applied", func(ctx context.Context) (bool, error) {
			got, err := getWork(ctx, w)
			if err != nil {
				return false, err
			}
			applied, dispatching := condition(got, workv1alpha1.WorkApplied), condition(got, workv1alpha1.WorkDispatching)
			return applied != nil && applied.Status == metav1.ConditionTrue && applied.Reason == workv1alpha1.WorkAppliedSuccessfulReason &&
				applied.Message == workv1alpha1.WorkAppliedSuccessfulMessage &&
				dispatching != nil && dispatching.Status == metav1.ConditionTrue && dispatching.Reason == workv1alpha1.WorkDispatchingReason, nil
		}, harness.Timeout(settle))
	}
	d, err := memberDeployment(context.Background(), m2, "nginx")
	must(t, err)
	if *d.Spec.Replicas != 1 {
		t.Errorf("member2 replicas %d, want 1", *d.Spec.Replicas)
	}
}

func testReflected(t *testing.T, nginx *nginxCase) {
	harness.Eventually(t, "member1 work reflects 2 ready replicas", func(ctx context.Context) (bool, error) {
		w, err := getWork(ctx, nginx.works["member1"])
		if err != nil {
			return false, err
		}
		s, health, ok := reflected(w)
		id := w.Status.ManifestStatuses
		return ok && s["readyReplicas"] == float64(2) && s["resourceTemplateGeneration"] == float64(1) &&
			health == workv1alpha1.ResourceHealthy && id[0].Identifier == workv1alpha1.ResourceIdentifier{
			Ordinal: 0, Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "default", Name: "nginx"}, nil
	}, harness.Timeout(podsReady))
	// member2 runs no controllers: its Deployment never reports replicas,
	// so the reflection holds only the generations and it is unhealthy.
	harness.Eventually(t, "member2 work reflects the bare object", func(ctx context.Context) (bool, error) {
		w, err := getWork(ctx, nginx.works["member2"])
		if err != nil {
			return false, err
		}
		s, health, ok := reflected(w)
		return ok && s["generation"] == float64(1) && s["readyReplicas"] == nil && health == workv1alpha1.ResourceUnhealthy, nil
	}, harness.Timeout(settle))
}

func testAggregated(t *testing.T, nginx *nginxCase, m1, m2 client.Client) {
	harness.Eventually(t, "binding aggregated status", func(ctx context.Context) (bool, error) {
		rb := &workv1alpha2.ResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(nginx.binding), rb); err != nil {
			return false, err
		}
		items := rb.Status.AggregatedStatus
		full := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.FullyApplied)
		return len(items) == 2 && items[0].ClusterName == "member1" && items[1].ClusterName == "member2" &&
			items[0].Applied && items[1].Applied && items[0].Health == workv1alpha2.ResourceHealthy &&
			items[1].Health == workv1alpha2.ResourceUnhealthy &&
			full != nil && full.Status == metav1.ConditionTrue && full.Reason == workv1alpha2.FullyAppliedSuccessReason &&
			full.Message == workv1alpha2.FullyAppliedSuccessMessage &&
			meta.IsStatusConditionTrue(rb.Status.Conditions, workv1alpha2.Scheduled), nil
	}, harness.Timeout(settle))
	// The template shows the sum of what really runs in the members.
	harness.Eventually(t, "template status is the members' sum", func(ctx context.Context) (bool, error) {
		var want appsv1.DeploymentStatus
		for _, mc := range []client.Client{m1, m2} {
			d, err := memberDeployment(ctx, mc, "nginx")
			if err != nil {
				return false, err
			}
			want.Replicas += d.Status.Replicas
			want.ReadyReplicas += d.Status.ReadyReplicas
			want.AvailableReplicas += d.Status.AvailableReplicas
		}
		tmpl := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "nginx"}, tmpl); err != nil {
			return false, err
		}
		s := tmpl.Status
		// member2 never observes its generation, so observedGeneration
		// does not advance.
		return want.ReadyReplicas == 2 && s.ReadyReplicas == want.ReadyReplicas && s.Replicas == want.Replicas &&
			s.AvailableReplicas == want.AvailableReplicas && s.ObservedGeneration == 0, nil
	}, harness.Timeout(settle))
}

func testFirstSyncWrites(t *testing.T, c *controllers) {
	quiet(t, c, 3*time.Second)
	cp, members := c.cpWrites.Since(0), c.memberWrites.Since(0)
	t.Logf("first sync: %d control-plane writes:%s", len(cp), harness.Summarize(cp))
	t.Logf("first sync: %d member writes:%s", len(members), harness.Summarize(members))
	count := func(writes []harness.Write, substr string) int {
		n := 0
		for _, w := range writes {
			if strings.Contains(w.String(), substr) {
				n++
			}
		}
		return n
	}
	// member2's object never changes after creation: one create and one
	// Work status write (Applied with the first manifest status).
	if got := count(members, "member2 POST"); got != 1 {
		t.Errorf("member2 creates: %d, want 1", got)
	}
	if got := count(members, "member2 PUT") + count(members, "member2 PATCH"); got != 0 {
		t.Errorf("member2 updates: %d, want 0", got)
	}
	w2 := names.ExecutionSpace("member2") + "/works/"
	if got := count(cp, w2); got != 1 {
		t.Errorf("member2 Work status writes: %d, want 1", got)
	}
	// Both Works report within the binding's coalescing delay: the binding
	// is written once with both, then once per change of member1's status.
	if got := count(cp, "/resourcebindings/"); got > 3 {
		t.Errorf("binding status writes: %d, want at most 3", got)
	}
}

// testThreeClusterWrites propagates a Deployment to all three members (as
// in the example) and counts every write the execution and status
// controllers make until the template shows the aggregated status.
func testThreeClusterWrites(t *testing.T, c *controllers, m1 client.Client) {
	ctx := context.Background()
	cpBefore, mBefore := c.cpWrites.Len(), c.memberWrites.Len()
	tmpl := createTemplate(t, nginxDeployment("web", nil))
	rbID := uuid.NewString()
	clusters := []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 1}, {Name: "member2", Replicas: 1}, {Name: "member3", Replicas: 1}}
	rb := createBinding(t, tmpl, rbID, clusters)
	for _, tc := range clusters {
		w := buildWork(t, workSpec{cluster: tc.Name, template: tmpl, bindingID: rbID, bindingName: rb.Name, mutate: setReplicas(1)})
		must(t, env.Client.Create(ctx, w))
	}
	harness.Eventually(t, "web fully applied and ready in member1", func(ctx context.Context) (bool, error) {
		b := &workv1alpha2.ResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(rb), b); err != nil {
			return false, err
		}
		d := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, d); err != nil {
			return false, err
		}
		return meta.IsStatusConditionTrue(b.Status.Conditions, workv1alpha2.FullyApplied) && len(b.Status.AggregatedStatus) == 3 &&
			d.Status.ReadyReplicas == 1 && d.Status.AvailableReplicas == 1, nil
	}, harness.Timeout(podsReady))
	// Let trailing updates (delayed reconciles) land before counting.
	quiet(t, c, 3*time.Second)
	cp, members := c.cpWrites.Since(cpBefore), c.memberWrites.Since(mBefore)
	t.Logf("three clusters: %d control-plane writes:%s", len(cp), harness.Summarize(cp))
	t.Logf("three clusters: %d member writes:%s", len(members), harness.Summarize(members))
	if len(members) != 3 {
		t.Errorf("member writes %d, want 3 creates", len(members))
	}
	// Work statuses: one each, plus member1's pods becoming ready; one
	// binding write with all three, plus member1's change; the template
	// once or twice. kube-controller-manager may report member1's rollout
	// in one or two status steps (replicas, then ready/available), each a
	// real change that flows through: 8 writes in the quick case, 10 when
	// it takes two steps. That nothing is written without a change is
	// asserted by the unchanged-reconcile tests.
	if len(cp) > 10 {
		t.Errorf("control-plane writes %d, want at most 10", len(cp))
	}
}

// quiet waits until neither side has written for d.
func quiet(t *testing.T, c *controllers, d time.Duration) {
	t.Helper()
	last, since := c.cpWrites.Len()+c.memberWrites.Len(), time.Now()
	harness.Eventually(t, "writes settle", func(context.Context) (bool, error) {
		if n := c.cpWrites.Len() + c.memberWrites.Len(); n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) >= d, nil
	}, harness.Timeout(settle))
}

// testRestartWritesNothing replaces the manager by a fresh one (cold
// caches, no records): its reconcile of every unchanged Work, binding and
// template must not write.
func testRestartWritesNothing(t *testing.T, old *controllers, nginx *nginxCase, m1 client.Client) *controllers {
	// A member change that does not matter (a label Propel does not manage)
	// re-queues the Work; the reconcile finds nothing to do.
	before, cpBefore, mBefore := harness.Reconciles(t, names.ExecutionControllerName, ""), old.cpWrites.Len(), old.memberWrites.Len()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx"}}
	mutate(t, m1, d, func() { d.Labels["team"] = "blue" })
	harness.Eventually(t, "execution reconciles after a member label change", func(context.Context) (bool, error) {
		return harness.Reconciles(t, names.ExecutionControllerName, "") > before, nil
	}, harness.Timeout(settle))
	if cp, m := old.cpWrites.Since(cpBefore), old.memberWrites.Since(mBefore); len(m) != 0 || hasWorkSpecWrite(cp) {
		t.Errorf("an unmanaged label change caused writes: control plane%s\nmembers%s", harness.Summarize(cp), harness.Summarize(m))
	}

	old.stop()
	before = harness.Reconciles(t, names.ExecutionControllerName, "success")
	// A work status reconcile that reflected schedules its periodic resync,
	// so controller-runtime counts it as requeue_after, not success.
	beforeStatus := harness.Reconciles(t, names.WorkStatusControllerName, "requeue_after")
	beforeRB := harness.Reconciles(t, names.ResourceBindingStatusControllerName, "success")
	fresh := startControllers(t)
	harness.Eventually(t, "fresh controllers reconcile the works and the binding", func(context.Context) (bool, error) {
		return harness.Reconciles(t, names.ExecutionControllerName, "success") >= before+2 &&
			harness.Reconciles(t, names.WorkStatusControllerName, "requeue_after") >= beforeStatus+2 &&
			harness.Reconciles(t, names.ResourceBindingStatusControllerName, "success") >= beforeRB+1, nil
	}, harness.Timeout(settle))
	// Member1's pods are settled: nothing the fresh manager sees differs.
	if cp, m := fresh.cpWrites.Since(0), fresh.memberWrites.Since(0); len(cp)+len(m) != 0 {
		t.Errorf("a fresh manager wrote for unchanged objects: control plane%s\nmembers%s", harness.Summarize(cp), harness.Summarize(m))
	}
	return fresh
}

func hasWorkSpecWrite(writes []harness.Write) bool {
	for _, w := range writes {
		if l := w.Path; strings.Contains(l, "/works/") || strings.Contains(l, "/resourcebindings/") || strings.Contains(l, "/deployments/") {
			return true
		}
	}
	return false
}

func testDrift(t *testing.T, m1 client.Client) {
	ctx := context.Background()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx"}}
	mutate(t, m1, d, func() {
		d.Spec.Template.Spec.Containers[0].Image = "nginx:drifted"
		d.Spec.Replicas = ptr.To[int32](5)
	})
	harness.Eventually(t, "drift reverted", func(ctx context.Context) (bool, error) {
		d, err := memberDeployment(ctx, m1, "nginx")
		return err == nil && d.Spec.Template.Spec.Containers[0].Image == "nginx" && *d.Spec.Replicas == 2 &&
			d.Labels["team"] == "blue", err
	}, harness.Timeout(settle))
	// Deleting the member object recreates it.
	must(t, m1.Delete(ctx, d))
	harness.Eventually(t, "deleted object recreated", func(ctx context.Context) (bool, error) {
		got, err := memberDeployment(ctx, m1, "nginx")
		return err == nil && got.UID != d.UID, nil
	}, harness.Timeout(settle))
}

// testRetain: a Deployment labelled retain-replicas keeps the member's
// replicas, while other drift is reverted; a Service keeps the clusterIP
// its member allocated through an update.
func testRetain(t *testing.T, m1, m2 client.Client) {
	ctx := context.Background()
	tmpl := createTemplate(t, nginxDeployment("scaled", map[string]string{names.RetainReplicasLabel: names.TrueValue}))
	w := buildWork(t, workSpec{cluster: "member1", template: tmpl, bindingID: uuid.NewString(), bindingName: "scaled-deployment", mutate: setReplicas(1)})
	must(t, env.Client.Create(ctx, w))
	harness.Eventually(t, "scaled applied", func(ctx context.Context) (bool, error) {
		_, err := memberDeployment(ctx, m1, "scaled")
		return err == nil, nil
	}, harness.Timeout(settle))
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "scaled"}}
	mutate(t, m1, d, func() {
		d.Spec.Replicas = ptr.To[int32](4) // as a member HPA would
		d.Spec.Template.Spec.Containers[0].Image = "nginx:drifted"
	})
	harness.Eventually(t, "image reverted, replicas kept", func(ctx context.Context) (bool, error) {
		d, err := memberDeployment(ctx, m1, "scaled")
		return err == nil && d.Spec.Template.Spec.Containers[0].Image == "nginx", err
	}, harness.Timeout(settle))
	d, err := memberDeployment(ctx, m1, "scaled")
	must(t, err)
	if *d.Spec.Replicas != 4 {
		t.Errorf("retain-replicas: member replicas %d, want 4", *d.Spec.Replicas)
	}

	svc := createTemplate(t, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "nginx"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	})
	sw := buildWork(t, workSpec{cluster: "member2", template: svc, bindingID: uuid.NewString(), bindingName: "web-service"})
	must(t, env.Client.Create(ctx, sw))
	got := &corev1.Service{}
	harness.Eventually(t, "service applied", func(ctx context.Context) (bool, error) {
		return m2.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, got) == nil && got.Spec.ClusterIP != "", nil
	}, harness.Timeout(settle))
	if got.Spec.ClusterIP == svc.Object["spec"].(map[string]interface{})["clusterIP"] {
		t.Logf("member allocated the control plane's clusterIP %s by chance", got.Spec.ClusterIP)
	}
	ip := got.Spec.ClusterIP
	mutate(t, m2, got, func() { got.Spec.Ports[0].Port = 8080 })
	harness.Eventually(t, "service drift reverted with the member's clusterIP", func(ctx context.Context) (bool, error) {
		s := &corev1.Service{}
		err := m2.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, s)
		return err == nil && s.Spec.Ports[0].Port == 80 && s.Spec.ClusterIP == ip, err
	}, harness.Timeout(settle))
	harness.Eventually(t, "service work applied", func(ctx context.Context) (bool, error) {
		w, err := getWork(ctx, sw)
		return err == nil && meta.IsStatusConditionTrue(w.Status.Conditions, workv1alpha1.WorkApplied), err
	}, harness.Timeout(settle))
}

// testConflict: an existing object Propel does not manage is refused with
// Abort, taken over with Overwrite, and never deleted.
func testConflict(t *testing.T, m2 client.Client) {
	ctx := context.Background()
	existing := nginxDeployment("existing", nil)
	existing.Spec.Template.Spec.Containers[0].Image = "busybox"
	must(t, m2.Create(ctx, existing.DeepCopy()))
	tmpl := createTemplate(t, nginxDeployment("existing", nil))
	w := buildWork(t, workSpec{cluster: "member2", template: tmpl, bindingID: uuid.NewString(), bindingName: "existing-deployment"})
	must(t, env.Client.Create(ctx, w))
	want := "Failed to apply all manifests (0/1): resource(kind=Deployment, default/existing) already exists in the cluster member2 " +
		"and the work.karmada.io/conflict-resolution strategy value is empty, Karmada will not manage this resource"
	harness.Eventually(t, "abort refuses", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, w)
		if err != nil {
			return false, err
		}
		c := condition(got, workv1alpha1.WorkApplied)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == workv1alpha1.WorkAppliedFailedReason && c.Message == want, nil
	}, harness.Timeout(settle))
	d, err := memberDeployment(ctx, m2, "existing")
	must(t, err)
	if d.Spec.Template.Spec.Containers[0].Image != "busybox" || d.Labels[names.ManagedLabel] != "" {
		t.Fatalf("abort changed the existing object: image %s labels %v", d.Spec.Template.Spec.Containers[0].Image, d.Labels)
	}

	overwrite := buildWork(t, workSpec{cluster: "member2", template: tmpl, bindingID: w.Labels[names.ResourceBindingPermanentIDLabel],
		bindingName: "existing-deployment", conflictResolution: names.ConflictResolutionOverwrite})
	got := w.DeepCopy()
	mutate(t, env.Client, got, func() {
		got.Spec = overwrite.Spec
		got.Annotations[names.ConflictResolutionAnnotation] = names.ConflictResolutionOverwrite
	})
	harness.Eventually(t, "overwrite takes over", func(ctx context.Context) (bool, error) {
		d, err := memberDeployment(ctx, m2, "existing")
		return err == nil && d.Spec.Template.Spec.Containers[0].Image == "nginx" && d.Labels[names.ManagedLabel] == names.TrueValue, err
	}, harness.Timeout(settle))

	// A Work over an unmanaged object goes away without deleting it.
	bystander := nginxDeployment("bystander", nil)
	must(t, m2.Create(ctx, bystander.DeepCopy()))
	btmpl := createTemplate(t, nginxDeployment("bystander", nil))
	bw := buildWork(t, workSpec{cluster: "member2", template: btmpl, bindingID: uuid.NewString(), bindingName: "bystander-deployment"})
	must(t, env.Client.Create(ctx, bw))
	harness.Eventually(t, "bystander refused", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, bw)
		return err == nil && condition(got, workv1alpha1.WorkApplied) != nil, err
	}, harness.Timeout(settle))
	must(t, env.Client.Delete(ctx, bw))
	harness.Eventually(t, "bystander work released", func(ctx context.Context) (bool, error) {
		_, err := getWork(ctx, bw)
		return apierrors.IsNotFound(err), nil
	}, harness.Timeout(settle))
	if _, err := memberDeployment(ctx, m2, "bystander"); err != nil {
		t.Fatalf("unmanaged object deleted with its Work: %v", err)
	}
}

func testSuspend(t *testing.T, nginx *nginxCase, m1 client.Client) {
	w := nginx.works["member1"].DeepCopy()
	mutate(t, env.Client, w, func() { w.Spec.SuspendDispatching = ptr.To(true) })
	harness.Eventually(t, "dispatching suspended", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, w)
		c := condition(got, workv1alpha1.WorkDispatching)
		return err == nil && c != nil && c.Status == metav1.ConditionFalse && c.Reason == workv1alpha1.WorkSuspendDispatchingReason &&
			c.Message == workv1alpha1.WorkSuspendDispatchingMessage, err
	}, harness.Timeout(settle))
	changed := buildWork(t, workSpec{cluster: "member1", template: nginx.template, bindingID: nginx.binding.Labels[names.ResourceBindingPermanentIDLabel],
		bindingName: nginx.binding.Name, mutate: setReplicas(3)})
	mutate(t, env.Client, w, func() {
		w.Spec.Workload = changed.Spec.Workload
		w.Spec.SuspendDispatching = ptr.To(false)
	})
	harness.Eventually(t, "dispatching resumed with the new spec", func(ctx context.Context) (bool, error) {
		d, err := memberDeployment(ctx, m1, "nginx")
		got, werr := getWork(ctx, w)
		return err == nil && werr == nil && *d.Spec.Replicas == 3 &&
			meta.IsStatusConditionTrue(got.Status.Conditions, workv1alpha1.WorkDispatching), nil
	}, harness.Timeout(settle))
}

func testDeletion(t *testing.T, m1 client.Client) {
	ctx := context.Background()
	w := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: names.ExecutionSpace("member1"), Name: names.WorkName("Deployment", "scaled", "default")}}
	must(t, env.Client.Delete(ctx, w))
	harness.Eventually(t, "member object and work deleted", func(ctx context.Context) (bool, error) {
		_, err := memberDeployment(ctx, m1, "scaled")
		_, werr := getWork(ctx, w)
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(werr), nil
	}, harness.Timeout(settle))

	// preserveResourcesOnDeletion keeps the object, without Propel's keys.
	tmpl := createTemplate(t, nginxDeployment("kept", nil))
	kw := buildWork(t, workSpec{cluster: "member1", template: tmpl, bindingID: uuid.NewString(), bindingName: "kept-deployment", preserve: true})
	must(t, env.Client.Create(ctx, kw))
	harness.Eventually(t, "kept applied", func(ctx context.Context) (bool, error) {
		_, err := memberDeployment(ctx, m1, "kept")
		return err == nil, nil
	}, harness.Timeout(settle))
	must(t, env.Client.Delete(ctx, kw))
	harness.Eventually(t, "kept released", func(ctx context.Context) (bool, error) {
		d, err := memberDeployment(ctx, m1, "kept")
		_, werr := getWork(ctx, kw)
		return err == nil && apierrors.IsNotFound(werr) && d.Labels[names.ManagedLabel] == "" &&
			d.Annotations[names.WorkNameAnnotation] == "" && d.Labels["app"] == "kept", nil
	}, harness.Timeout(settle))
}

// testOutage stops member2's API server: a changed Work and a deleted Work
// wait (conditions and finalizer untouched, nothing deleted) and catch up
// when it is back.
func testOutage(t *testing.T, nginx *nginxCase, m2 client.Client) {
	ctx := context.Background()
	member2 := env.Member("member2")
	member2.APIServer.Stop()
	restarted := false
	defer func() {
		if !restarted {
			_ = member2.APIServer.Start(context.Background())
		}
	}()
	w, err := getWork(ctx, nginx.works["member2"])
	must(t, err)
	applied := *condition(w, workv1alpha1.WorkApplied)
	changed := buildWork(t, workSpec{cluster: "member2", template: nginx.template, bindingID: nginx.binding.Labels[names.ResourceBindingPermanentIDLabel],
		bindingName: nginx.binding.Name, mutate: setReplicas(4)})
	mutate(t, env.Client, w, func() { w.Spec.Workload = changed.Spec.Workload })
	existing := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: names.ExecutionSpace("member2"), Name: names.WorkName("Deployment", "existing", "default")}}
	must(t, env.Client.Delete(ctx, existing))

	errorsBefore := harness.Reconciles(t, names.ExecutionControllerName, "error")
	harness.Eventually(t, "syncs fail while member2 is down", func(context.Context) (bool, error) {
		return harness.Reconciles(t, names.ExecutionControllerName, "error") >= errorsBefore+4, nil
	}, harness.Timeout(settle))
	w, err = getWork(ctx, w)
	must(t, err)
	if c := condition(w, workv1alpha1.WorkApplied); c == nil || *c != applied {
		t.Errorf("Applied changed while the member was unreachable: %+v, was %+v", c, applied)
	}
	got, err := getWork(ctx, existing)
	if err != nil || len(got.Finalizers) == 0 {
		t.Fatalf("deleted Work released while its member was unreachable: %v %v", err, got.Finalizers)
	}

	must(t, member2.APIServer.Start(ctx))
	restarted = true
	harness.Eventually(t, "member2 catches up", func(ctx context.Context) (bool, error) {
		d, err := memberDeployment(ctx, m2, "nginx")
		_, eerr := memberDeployment(ctx, m2, "existing")
		_, werr := getWork(ctx, existing)
		return err == nil && *d.Spec.Replicas == 4 && apierrors.IsNotFound(eerr) && apierrors.IsNotFound(werr), nil
	}, harness.Timeout(settle))
	for _, name := range []string{"bystander"} {
		if _, err := memberDeployment(ctx, m2, name); err != nil {
			t.Errorf("%s lost after the outage: %v", name, err)
		}
	}
	if err := m2.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &corev1.Service{}); err != nil {
		t.Errorf("service lost after the outage: %v", err)
	}
}

// testClusterScoped propagates a ClusterRole through a
// ClusterResourceBinding to member3 and deletes it again.
func testClusterScoped(t *testing.T, m3 client.Client) {
	ctx := context.Background()
	tmpl := createTemplate(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "propel-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}})
	id := uuid.NewString()
	crb := &workv1alpha2.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: names.BindingName("ClusterRole", "propel-reader"),
			Labels: map[string]string{names.ClusterResourceBindingPermanentIDLabel: id}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "propel-reader", UID: tmpl.GetUID()},
			Clusters: []workv1alpha2.TargetCluster{{Name: "member3"}},
		},
	}
	must(t, env.Client.Create(ctx, crb))
	crb.Status.LastScheduledTime = ptr.To(metav1.Now())
	must(t, env.Client.Status().Update(ctx, crb))
	w := buildWork(t, workSpec{cluster: "member3", template: tmpl, bindingID: id, bindingName: crb.Name, clusterBinding: true})
	must(t, env.Client.Create(ctx, w))
	harness.Eventually(t, "cluster role applied and aggregated", func(ctx context.Context) (bool, error) {
		role := &rbacv1.ClusterRole{}
		if err := m3.Get(ctx, client.ObjectKey{Name: "propel-reader"}, role); err != nil {
			return false, err
		}
		got := &workv1alpha2.ClusterResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(crb), got); err != nil {
			return false, err
		}
		items := got.Status.AggregatedStatus
		return role.Labels[names.ManagedLabel] == names.TrueValue && len(items) == 1 && items[0].ClusterName == "member3" &&
			items[0].Applied && items[0].Health == workv1alpha2.ResourceHealthy &&
			meta.IsStatusConditionTrue(got.Status.Conditions, workv1alpha2.FullyApplied), nil
	}, harness.Timeout(settle))
	must(t, env.Client.Delete(ctx, w))
	harness.Eventually(t, "cluster role deleted with its work", func(ctx context.Context) (bool, error) {
		err := m3.Get(ctx, client.ObjectKey{Name: "propel-reader"}, &rbacv1.ClusterRole{})
		return apierrors.IsNotFound(err), nil
	}, harness.Timeout(settle))
}

func setClusterReady(t *testing.T, name string, status metav1.ConditionStatus) {
	t.Helper()
	ctx := context.Background()
	c := &clusterv1alpha1.Cluster{}
	must(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, c))
	meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, Status: status, Reason: "Test"})
	must(t, env.Client.Status().Update(ctx, c))
}

// testClusterLifecycle: a Work waits for its cluster to be Ready (nothing
// is written meanwhile) and is applied as soon as it is; when the Cluster
// is removed its informers stop and its Works are released without
// touching the member.
func testClusterLifecycle(t *testing.T, c *controllers, m3 client.Client) {
	ctx := context.Background()
	setClusterReady(t, "member3", metav1.ConditionFalse)
	tmpl := createTemplate(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "gated"}, Data: map[string]string{"k": "v"}})
	w := buildWork(t, workSpec{cluster: "member3", template: tmpl, bindingID: uuid.NewString(), bindingName: "gated-configmap"})
	errorsBefore := harness.Reconciles(t, names.ExecutionControllerName, "error")
	must(t, env.Client.Create(ctx, w))
	harness.Eventually(t, "sync refused while member3 is not ready", func(context.Context) (bool, error) {
		return harness.Reconciles(t, names.ExecutionControllerName, "error") > errorsBefore, nil
	}, harness.Timeout(settle))
	got, err := getWork(ctx, w)
	must(t, err)
	if len(got.Status.Conditions) != 0 {
		t.Errorf("conditions written for a cluster that is not ready: %+v", got.Status.Conditions)
	}
	if err := m3.Get(ctx, client.ObjectKey{Namespace: "default", Name: "gated"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Fatalf("applied to a cluster that is not ready: %v", err)
	}
	setClusterReady(t, "member3", metav1.ConditionTrue)
	harness.Eventually(t, "applied once member3 is ready", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, w)
		return err == nil && meta.IsStatusConditionTrue(got.Status.Conditions, workv1alpha1.WorkApplied) &&
			m3.Get(ctx, client.ObjectKey{Namespace: "default", Name: "gated"}, &corev1.ConfigMap{}) == nil, nil
	}, harness.Timeout(settle))

	must(t, env.Client.Delete(ctx, &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member3"}}))
	harness.Eventually(t, "member3 informers stopped", func(context.Context) (bool, error) {
		return c.informers.Lookup("member3") == nil, nil
	}, harness.Timeout(settle))
	must(t, env.Client.Delete(ctx, w))
	harness.Eventually(t, "work of a removed cluster released", func(ctx context.Context) (bool, error) {
		_, err := getWork(ctx, w)
		return apierrors.IsNotFound(err), nil
	}, harness.Timeout(settle))
	if err := m3.Get(ctx, client.ObjectKey{Namespace: "default", Name: "gated"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("object of a removed cluster touched: %v", err)
	}
}
