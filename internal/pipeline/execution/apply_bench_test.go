package execution

import (
	"context"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// defaultedDeployment is a Work manifest as the binding controller writes
// it: a defaulted Deployment with Karmada's labels and annotations.
const defaultedDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  labels:
    app: nginx
    karmada.io/managed: "true"
    propagationpolicy.karmada.io/permanent-id: 5d5d1a7e-0d37-4d39-9e8a-6c0e2f6b1a01
    resourcebinding.karmada.io/permanent-id: 0b0f3b3c-58a6-4d1e-a6f6-5c3f3b3e6c02
    work.karmada.io/permanent-id: 8c2d4f1a-4c5e-4c43-9a51-0a1e0f1e2d03
  annotations:
    propagationpolicy.karmada.io/name: nginx-pp
    propagationpolicy.karmada.io/namespace: default
    resourcebinding.karmada.io/name: nginx-deployment
    resourcebinding.karmada.io/namespace: default
    resourcetemplate.karmada.io/generation: "1"
    resourcetemplate.karmada.io/managed-annotations: propagationpolicy.karmada.io/name,propagationpolicy.karmada.io/namespace,resourcebinding.karmada.io/name,resourcebinding.karmada.io/namespace,resourcetemplate.karmada.io/generation,resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels,resourcetemplate.karmada.io/uid,work.karmada.io/conflict-resolution,work.karmada.io/name,work.karmada.io/namespace
    resourcetemplate.karmada.io/managed-labels: app,karmada.io/managed,propagationpolicy.karmada.io/permanent-id,resourcebinding.karmada.io/permanent-id,work.karmada.io/permanent-id
    resourcetemplate.karmada.io/uid: 3f8a9b0c-1d2e-4f5a-8b6c-7d8e9f0a1b04
    work.karmada.io/conflict-resolution: abort
    work.karmada.io/name: nginx-687f7fb96f
    work.karmada.io/namespace: karmada-es-member1
spec:
  progressDeadlineSeconds: 600
  replicas: 2
  revisionHistoryLimit: 10
  selector:
    matchLabels: {app: nginx}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        imagePullPolicy: IfNotPresent
        ports: [{containerPort: 80, protocol: TCP}]
        resources:
          requests: {cpu: 100m, memory: 128Mi}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30
`

type applyBench struct {
	r        *Reconciler
	raw      []byte
	work     *workv1alpha1.Work
	observed map[string]interface{}
}

func newApplyBench(b *testing.B, retainReplicas bool) *applyBench {
	m := obj(b, defaultedDeployment)
	if retainReplicas {
		labels := m.GetLabels()
		labels[names.RetainReplicasLabel] = names.TrueValue
		m.SetLabels(labels)
	}
	raw, err := json.Marshal(m.Object)
	if err != nil {
		b.Fatal(err)
	}
	// The member object: the manifest as created, plus what the member's
	// API server and controllers add.
	observed := m.DeepCopy()
	observed.SetResourceVersion("123456")
	observed.SetUID("9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c05")
	observed.SetGeneration(1)
	observed.SetCreationTimestamp(metav1.Now())
	annotations := observed.GetAnnotations()
	annotations["deployment.kubernetes.io/revision"] = "1"
	observed.SetAnnotations(annotations)
	observed.Object["status"] = map[string]interface{}{"observedGeneration": int64(1), "replicas": int64(2),
		"updatedReplicas": int64(2), "readyReplicas": int64(2), "availableReplicas": int64(2)}
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1", Name: "nginx-687f7fb96f",
		UID: "w", Generation: 1, Labels: map[string]string{names.WorkPermanentIDLabel: "8c2d4f1a-4c5e-4c43-9a51-0a1e0f1e2d03"}}}
	r := &Reconciler{interp: resourceinterpreter.New(native.New()), records: newVersionRecords()}
	return &applyBench{r: r, raw: raw, work: work, observed: observed.Object}
}

// run is the update decision of one reconcile: decode the manifest, add
// the ownership metadata, retain, and decide whether to write.
func (a *applyBench) run(b *testing.B) {
	ctx := context.Background()
	observed := &unstructured.Unstructured{Object: a.observed}
	for b.Loop() {
		desired, err := decodeManifest(a.raw)
		if err != nil {
			b.Fatal(err)
		}
		ensureOwnershipMetadata(desired, a.work)
		if err := checkOwnership("member1", desired, observed); err != nil {
			b.Fatal(err)
		}
		desired, err = a.r.retain(ctx, desired, observed)
		if err != nil {
			b.Fatal(err)
		}
		if !upToDate(desired, observed) {
			b.Fatal("an unchanged object needs an update")
		}
	}
}

// BenchmarkApplyWork measures the hot path of a Work sync whose member
// object is up to date: Retain plus the comparison that skips the write.
func BenchmarkApplyWork(b *testing.B) {
	b.Run("compare", func(b *testing.B) {
		newApplyBench(b, false).run(b)
	})
	b.Run("compare/retain-replicas", func(b *testing.B) {
		newApplyBench(b, true).run(b)
	})
	b.Run("version-record-hit", func(b *testing.B) {
		// What a sync costs when neither side changed since the last
		// write: manifest identities from the cache, one record lookup.
		a := newApplyBench(b, false)
		observed := &unstructured.Unstructured{Object: a.observed}
		key := keyOf("member1", observed)
		a.r.records.store(key, a.work, observed)
		a.r.refs = newRefCache()
		a.work.Spec.Workload.Manifests = []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: a.raw}}}
		for b.Loop() {
			refs, err := a.r.refs.of(a.work)
			if err != nil || len(refs) != 1 {
				b.Fatal(err)
			}
			if !a.r.recordedUpToDate(key, a.work, observed) {
				b.Fatal("record does not vouch for the unchanged object")
			}
		}
	})
	b.Run("compare-only", func(b *testing.B) {
		a := newApplyBench(b, false)
		observed := &unstructured.Unstructured{Object: a.observed}
		desired, _ := decodeManifest(a.raw)
		desired, _ = a.r.retain(context.Background(), desired, observed)
		for b.Loop() {
			if !upToDate(desired, observed) {
				b.Fatal("not up to date")
			}
		}
	})
}
