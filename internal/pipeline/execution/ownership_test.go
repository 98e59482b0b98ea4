package execution

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func TestCheckOwnership(t *testing.T) {
	desired, observed := obj(t, deployYAML), obj(t, deployYAML)
	err := checkOwnership("member1", desired, observed)
	want := "resource(kind=Deployment, default/nginx) already exists in the cluster member1 and the work.karmada.io/conflict-resolution strategy value is empty, Karmada will not manage this resource"
	if err == nil || err.Error() != want || !errors.Is(err, errNotManaged) {
		t.Fatalf("unmanaged: %v", err)
	}
	desired.SetAnnotations(map[string]string{names.ConflictResolutionAnnotation: names.ConflictResolutionAbort})
	if checkOwnership("member1", desired, observed) == nil {
		t.Fatal("abort must refuse")
	}
	desired.SetAnnotations(map[string]string{names.ConflictResolutionAnnotation: names.ConflictResolutionOverwrite})
	if err := checkOwnership("member1", desired, observed); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	desired.SetAnnotations(nil)
	observed.SetLabels(map[string]string{names.ManagedLabel: names.TrueValue})
	if err := checkOwnership("member1", desired, observed); err != nil {
		t.Fatalf("managed: %v", err)
	}
}

func TestEnsureOwnershipMetadata(t *testing.T) {
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1", Name: "nginx-687f7fb96f",
		Labels:      map[string]string{names.WorkPermanentIDLabel: "w1"},
		Annotations: map[string]string{names.ConflictResolutionAnnotation: "overwrite"}}}
	m := obj(t, deployYAML)
	m.SetAnnotations(map[string]string{names.ManagedAnnotationsAnnotation: "x", names.ManagedLabelsAnnotation: "app"})
	ensureOwnershipMetadata(m, work)
	l, a := m.GetLabels(), m.GetAnnotations()
	if l[names.ManagedLabel] != "true" || l[names.WorkPermanentIDLabel] != "w1" || a[names.WorkNameAnnotation] != work.Name ||
		a[names.WorkNamespaceAnnotation] != work.Namespace || a[names.ConflictResolutionAnnotation] != "overwrite" {
		t.Fatalf("labels %v annotations %v", l, a)
	}
	if got := a[names.ManagedLabelsAnnotation]; got != "app,karmada.io/managed,work.karmada.io/permanent-id" {
		t.Errorf("managed-labels %q", got)
	}
	want := "resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels,work.karmada.io/conflict-resolution,work.karmada.io/name,work.karmada.io/namespace"
	if got := a[names.ManagedAnnotationsAnnotation]; got != want {
		t.Errorf("managed-annotations %q", got)
	}
	// A manifest of the binding controller already has everything: no change.
	before := m.DeepCopy()
	ensureOwnershipMetadata(m, work)
	if !upToDate(before, m) {
		t.Error("second pass changed the manifest")
	}
}

func TestStripPropelMetadata(t *testing.T) {
	o := obj(t, deployYAML)
	o.SetLabels(map[string]string{"app": "nginx", names.ManagedLabel: "true", names.PropagationPolicyPermanentIDLabel: "p",
		names.ClusterPropagationPolicyPermanentIDLabel: "c", names.WorkPermanentIDLabel: "w"})
	o.SetAnnotations(map[string]string{"keep": "1", names.WorkNameAnnotation: "w", names.PropagationPolicyNameAnnotation: "pp"})
	if !stripPropelMetadata(o, true) {
		t.Fatal("nothing stripped")
	}
	wantLabels := map[string]string{"app": "nginx", names.ClusterPropagationPolicyPermanentIDLabel: "c"}
	if got := o.GetLabels(); fmt.Sprint(got) != fmt.Sprint(wantLabels) {
		t.Errorf("labels %v: a namespaced object keeps CPP claims", got)
	}
	if got := o.GetAnnotations(); len(got) != 1 || got["keep"] != "1" {
		t.Errorf("annotations %v", got)
	}
	if stripPropelMetadata(o, true) {
		t.Error("second strip reported a change")
	}
}

func TestMemberErr(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:1", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}
	cases := []struct {
		err       error
		transient bool
	}{
		{refused, true},
		{apierrors.NewServiceUnavailable("down"), true},
		{apierrors.NewTimeoutError("slow", 1), true},
		{apierrors.NewTooManyRequests("later", 1), true},
		{apierrors.NewInvalid(schema.GroupKind{Kind: "Deployment"}, "x", nil), false},
		{apierrors.NewForbidden(gr, "x", errors.New("no")), false},
		{apierrors.NewInternalError(errors.New("webhook failed")), false},
		{&meta.NoKindMatchError{GroupKind: schema.GroupKind{Kind: "Foo"}}, false},
	}
	for _, c := range cases {
		if got := isTransient(memberErr(c.err)); got != c.transient {
			t.Errorf("%v: transient %v, want %v", c.err, got, c.transient)
		}
	}
	if !isTransient(fmt.Errorf("retain: %w", layer.ErrNotReady)) || !isTransient(context.Canceled) {
		t.Error("interpreter not ready and cancellation are transient")
	}
	if isTransient(&conflictError{}) || isTransient(errors.New("bad manifest")) {
		t.Error("conflicts and local errors are not transient")
	}
}

func TestOnMemberEvent(t *testing.T) {
	r := &Reconciler{records: newVersionRecords()}
	var got []string
	enqueue := func(ev membercluster.ObjectEvent) { got = append(got, string(ev.Type)) }
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{UID: "w", Generation: 1}}
	o := obj(t, deployYAML)
	o.SetResourceVersion("1")
	ev := func(typ membercluster.EventType, old, cur string, mutate bool) membercluster.ObjectEvent {
		oldO, newO := o.DeepCopy(), o.DeepCopy()
		oldO.SetResourceVersion(old)
		newO.SetResourceVersion(cur)
		if mutate {
			newO.SetLabels(map[string]string{"x": "y"})
		}
		return membercluster.ObjectEvent{Type: typ, Cluster: "member1", Old: oldO, New: newO, Work: types.NamespacedName{Name: "w"}}
	}
	filter := func(e membercluster.ObjectEvent) {
		if r.wantsEvent(e) {
			enqueue(e)
		}
	}
	filter(ev(membercluster.ObjectUpdated, "1", "2", true)) // no record: ignored
	r.records.store(keyOf("member1", o), work, o)
	filter(ev(membercluster.ObjectUpdated, "0", "1", true))  // echo of our write
	filter(ev(membercluster.ObjectUpdated, "1", "2", false)) // status only
	filter(ev(membercluster.ObjectUpdated, "1", "2", true))  // drift
	filter(ev(membercluster.ObjectAdded, "", "3", false))    // relisted, changed
	filter(ev(membercluster.ObjectDeleted, "", "3", false))
	if fmt.Sprint(got) != "[Updated Added Deleted]" {
		t.Fatalf("enqueued %v", got)
	}
}

func TestVersionRecord(t *testing.T) {
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{UID: "w", Generation: 1}}
	o := obj(t, deployYAML)
	o.SetUID("u")
	o.SetGeneration(2)
	o.SetResourceVersion("10")
	v := newVersionRecords()
	key := keyOf("member1", o)
	v.store(key, work, o)
	rec, _ := v.get(key)
	status := o.DeepCopy()
	status.SetResourceVersion("11") // status churn keeps the generation
	if !rec.unchangedSince(work, status) {
		t.Error("status-only change invalidated the record")
	}
	relabelled := o.DeepCopy()
	relabelled.SetLabels(map[string]string{"team": "blue"})
	if rec.unchangedSince(work, relabelled) {
		t.Error("a label change (no new generation) not detected")
	}
	spec := o.DeepCopy()
	spec.SetGeneration(3)
	newWork := work.DeepCopy()
	newWork.Generation = 2
	if rec.unchangedSince(work, spec) || rec.unchangedSince(newWork, o) {
		t.Error("spec change on either side not detected")
	}
	cm := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default, resourceVersion: '5'}\n")
	v.store(keyOf("member1", cm), work, cm)
	rec, _ = v.get(keyOf("member1", cm))
	changed := cm.DeepCopy()
	changed.SetResourceVersion("6")
	if !rec.unchangedSince(work, cm) || rec.unchangedSince(work, changed) {
		t.Error("objects without generation compare by resourceVersion")
	}
	v.markUnmanaged(key)
	v.store(key, work, o)
	if v.isUnmanaged(key) {
		t.Error("a write clears the unmanaged mark")
	}
}
