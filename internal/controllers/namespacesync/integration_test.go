package namespacesync_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestNamespaceSyncWorks: a namespace created in the control plane gets one
// Work per member in Karmada's format; a namespace labelled
// skip-auto-propagation and the reserved ones get none; a deleted namespace
// Work is written again.
func TestNamespaceSyncWorks(t *testing.T) {
	ctx := context.Background()
	skipped := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: harness.UniqueName("skipped"),
		Labels: map[string]string{"namespace.karmada.io/skip-auto-propagation": "True"}}}
	synced := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: harness.UniqueName("synced"), Labels: map[string]string{"team": "a"}}}
	for _, ns := range []*corev1.Namespace{skipped, synced} {
		if err := env.Client.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	}
	workName := names.WorkName("Namespace", synced.Name, "")
	for _, member := range env.MemberNames() {
		var work *workv1alpha1.Work
		harness.Eventually(t, "namespace work in "+member, func(ctx context.Context) (bool, error) {
			work = &workv1alpha1.Work{}
			err := env.Client.Get(ctx, client.ObjectKey{Namespace: "karmada-es-" + member, Name: workName}, work)
			return err == nil, client.IgnoreNotFound(err)
		})
		if err := checkNamespaceWork(work, synced, member); err != nil {
			t.Errorf("%s: %v", member, err)
		}
		// Reconciled in order with one worker: the skipped namespace was
		// handled before the synced one.
		for _, ns := range []string{skipped.Name, "default", "kube-system", "karmada-cluster"} {
			err := env.Client.Get(ctx, client.ObjectKey{Namespace: "karmada-es-" + member, Name: names.WorkName("Namespace", ns, "")}, &workv1alpha1.Work{})
			if !apierrors.IsNotFound(err) {
				t.Errorf("%s: work for namespace %s: %v, want NotFound", member, ns, err)
			}
		}
	}

	w := &workv1alpha1.Work{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "karmada-es-member1", Name: workName}, w); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, w); err != nil {
		t.Fatal(err)
	}
	// The execution controller deletes the member namespace and releases
	// the Work; the namespace sync controller writes it again. (member1
	// runs a namespace controller, so its namespace really goes and comes
	// back; TestNamespaceReachesMembers covers the member side.)
	harness.Eventually(t, "deleted namespace work written again", func(ctx context.Context) (bool, error) {
		fresh := &workv1alpha1.Work{}
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(w), fresh)
		return err == nil && fresh.UID != w.UID && fresh.DeletionTimestamp.IsZero(), client.IgnoreNotFound(err)
	})
}

// TestNamespaceReachesMembers: through its Works and the execution
// controller, a control-plane namespace is created in every member as a
// Karmada-managed object.
func TestNamespaceReachesMembers(t *testing.T) {
	for _, m := range env.MemberNames() {
		env.WaitClusterReady(t, m, harness.Timeout(2*time.Minute))
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: harness.UniqueName("everywhere")}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	for _, m := range env.MemberNames() {
		waitMemberNamespace(t, m, ns.Name)
	}
}

func waitMemberNamespace(t *testing.T, member, name string) {
	t.Helper()
	c, err := env.MemberClient(member)
	if err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "namespace "+name+" in "+member, func(ctx context.Context) (bool, error) {
		ns := &corev1.Namespace{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return ns.Labels["karmada.io/managed"] == "true" && ns.DeletionTimestamp.IsZero(), nil
	})
}

// checkNamespaceWork compares a namespace Work with section 6.4 and 4.5.
func checkNamespaceWork(work *workv1alpha1.Work, ns *corev1.Namespace, member string) error {
	if len(work.Finalizers) != 1 || work.Finalizers[0] != "karmada.io/execution-controller" {
		return fmt.Errorf("finalizers %v", work.Finalizers)
	}
	owner := metav1.GetControllerOf(work)
	if owner == nil || owner.Kind != "Namespace" || owner.APIVersion != "v1" || owner.Name != ns.Name || owner.UID != ns.UID {
		return fmt.Errorf("controller reference %+v", owner)
	}
	if len(work.Annotations) != 0 || work.Spec.SuspendDispatching != nil || work.Spec.PreserveResourcesOnDeletion != nil {
		return fmt.Errorf("annotations %v, suspendDispatching %v, preserveResourcesOnDeletion %v",
			work.Annotations, work.Spec.SuspendDispatching, work.Spec.PreserveResourcesOnDeletion)
	}
	if len(work.Spec.Workload.Manifests) != 1 {
		return fmt.Errorf("%d manifests", len(work.Spec.Workload.Manifests))
	}
	m := map[string]any{}
	if err := json.Unmarshal(work.Spec.Workload.Manifests[0].Raw, &m); err != nil {
		return err
	}
	if _, ok := m["status"]; ok {
		return fmt.Errorf("manifest keeps status")
	}
	md, _ := m["metadata"].(map[string]any)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
		if _, ok := md[f]; ok {
			return fmt.Errorf("manifest keeps metadata.%s", f)
		}
	}
	labels, annotations := stringMap(md["labels"]), stringMap(md["annotations"])
	want := map[string]string{
		"resourcetemplate.karmada.io/uid":                 string(ns.UID),
		"work.karmada.io/namespace":                       "karmada-es-" + member,
		"work.karmada.io/name":                            work.Name,
		"resourcetemplate.karmada.io/managed-annotations": "resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels,resourcetemplate.karmada.io/uid,work.karmada.io/name,work.karmada.io/namespace",
		"resourcetemplate.karmada.io/managed-labels":      "karmada.io/managed,kubernetes.io/metadata.name,team,work.karmada.io/permanent-id",
	}
	for k, v := range want {
		if annotations[k] != v {
			return fmt.Errorf("manifest annotation %s = %q, want %q", k, annotations[k], v)
		}
	}
	if m["apiVersion"] != "v1" || m["kind"] != "Namespace" || md["name"] != ns.Name ||
		labels["karmada.io/managed"] != "true" || labels["team"] != "a" || len(annotations) != len(want) ||
		work.Labels["work.karmada.io/permanent-id"] == "" || labels["work.karmada.io/permanent-id"] != work.Labels["work.karmada.io/permanent-id"] {
		return fmt.Errorf("manifest %s/%s %v labels %v annotations %v, work labels %v", m["apiVersion"], m["kind"], md["name"], labels, annotations, work.Labels)
	}
	if strings.Contains(string(work.Spec.Workload.Manifests[0].Raw), "conflict-resolution") {
		return fmt.Errorf("namespace works carry no conflict resolution")
	}
	return nil
}

func stringMap(v any) map[string]string {
	out := map[string]string{}
	m, _ := v.(map[string]any)
	for k, x := range m {
		out[k], _ = x.(string)
	}
	return out
}
