package native

import (
	"fmt"
	"testing"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

const benchDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  generation: 3
  uid: 6f1c1d0e-1111-2222-3333-444455556666
  resourceVersion: "12345"
  creationTimestamp: "2024-01-01T00:00:00Z"
  labels: {app: nginx, propagationpolicy.karmada.io/permanent-id: 1b0c8a2e-aaaa-bbbb-cccc-ddddeeeeffff}
  annotations: {propagationpolicy.karmada.io/name: nginx-propagation, propagationpolicy.karmada.io/namespace: default}
spec:
  replicas: 20
  selector: {matchLabels: {app: nginx}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      priorityClassName: web-high
      tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}]
      initContainers:
      - name: init
        image: busybox
        resources: {requests: {cpu: 200m, memory: 64Mi}}
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{containerPort: 80, protocol: TCP}]
        env: [{name: MODE, value: prod}]
        resources:
          requests: {cpu: 250m, memory: 128Mi}
          limits: {cpu: "1", memory: 256Mi, ephemeral-storage: 1Gi}
        readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 5}
      - name: sidecar
        image: envoy:1.30
        resources: {requests: {cpu: 100m, memory: 64Mi}}
status:
  observedGeneration: 2
  replicas: 18
  updatedReplicas: 18
  readyReplicas: 17
  availableReplicas: 17
  unavailableReplicas: 1
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable, message: ok, lastUpdateTime: "2024-01-01T00:00:00Z", lastTransitionTime: "2024-01-01T00:00:00Z"}
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable, message: ok, lastUpdateTime: "2024-01-01T00:00:00Z", lastTransitionTime: "2024-01-01T00:00:00Z"}
`

func BenchmarkGetReplicasDeployment(b *testing.B) {
	n, d := New(), obj(b, benchDeployment)
	b.ReportAllocs()
	for b.Loop() {
		replicas, reqs, err := n.GetReplicas(ctx, d)
		if err != nil || replicas != 20 || reqs == nil {
			b.Fatal(replicas, reqs, err)
		}
	}
}

// BenchmarkAggregateStatusDeployment10Clusters aggregates 10 member
// statuses: "changed" rebuilds the template (observedGeneration advances),
// "unchanged" is the steady state that returns the template itself.
func BenchmarkAggregateStatusDeployment10Clusters(b *testing.B) {
	n := New()
	items := make([]workv1alpha2.AggregatedStatusItem, 10)
	for i := range items {
		items[i] = item(b, fmt.Sprintf("member%d", i+1), "{generation: 7, resourceTemplateGeneration: 3, observedGeneration: 7, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2}")
	}
	changed := obj(b, benchDeployment)
	unchanged, err := n.AggregateStatus(ctx, changed, items)
	if err != nil || unchanged == changed {
		b.Fatal("setup: the status must change", err)
	}
	b.Run("changed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if out, err := n.AggregateStatus(ctx, changed, items); err != nil || out == changed {
				b.Fatal(err)
			}
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if out, err := n.AggregateStatus(ctx, unchanged, items); err != nil || out != unchanged {
				b.Fatal(err)
			}
		}
	})
}
