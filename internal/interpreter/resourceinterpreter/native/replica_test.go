package native

import (
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestGetReplicas(t *testing.T) {
	const template = `
    template:
      spec:
        nodeSelector: {disk: ssd}
        priorityClassName: high
        containers:
        - name: app
          resources:
            requests: {cpu: 250m}
            limits: {cpu: "1", memory: 512Mi}`
	tests := []struct {
		name     string
		manifest string
		replicas int32
		request  map[string]string // nil: no requirements at all
	}{{
		name:     "Deployment",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n    replicas: 3" + template,
		replicas: 3,
		request:  map[string]string{"cpu": "250m", "memory": "512Mi"},
	}, {
		name:     "Deployment without replicas is 0, not 1",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:" + template,
		replicas: 0,
		request:  map[string]string{"cpu": "250m", "memory": "512Mi"},
	}, {
		name:     "Deployment without requirements",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2, template: {spec: {containers: [{name: a, image: x}]}}}",
		replicas: 2,
	}, {
		name:     "Deployment without spec",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}",
	}, {
		name:     "ReplicaSet",
		manifest: "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec:\n    replicas: 4" + template,
		replicas: 4,
		request:  map[string]string{"cpu": "250m", "memory": "512Mi"},
	}, {
		name:     "StatefulSet",
		manifest: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n    replicas: 5" + template,
		replicas: 5,
		request:  map[string]string{"cpu": "250m", "memory": "512Mi"},
	}, {
		name:     "Job min(parallelism, completions)",
		manifest: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n    parallelism: 3\n    completions: 2" + template,
		replicas: 2,
		request:  map[string]string{"cpu": "250m", "memory": "512Mi"},
	}, {
		name:     "Job parallelism below completions",
		manifest: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n    parallelism: 2\n    completions: 10" + template,
		replicas: 2,
		request:  map[string]string{"cpu": "250m", "memory": "512Mi"},
	}, {
		name:     "Job completions default to parallelism",
		manifest: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n    parallelism: 3" + template,
		replicas: 3,
		request:  map[string]string{"cpu": "250m", "memory": "512Mi"},
	}, {
		name:     "Job without parallelism is 0",
		manifest: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n    completions: 5" + template,
		replicas: 0,
		request:  map[string]string{"cpu": "250m", "memory": "512Mi"},
	}, {
		name: "Pod is always 1, requirements from its own spec",
		manifest: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {disk: ssd}
  containers:
  - name: a
    resources: {requests: {cpu: 100m, nvidia.com/gpu: "1"}}
  initContainers:
  - name: i
    resources: {requests: {cpu: 500m}}
  overhead: {cpu: 10m}`,
		replicas: 1,
		request:  map[string]string{"cpu": "510m", "nvidia.com/gpu": "1"},
	}}
	n := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replicas, reqs, err := n.GetReplicas(ctx, obj(t, tt.manifest))
			if err != nil {
				t.Fatal(err)
			}
			if replicas != tt.replicas {
				t.Errorf("replicas = %d, want %d", replicas, tt.replicas)
			}
			hasTemplateClaim := strings.Contains(tt.manifest, "nodeSelector")
			switch {
			case tt.request == nil && !hasTemplateClaim:
				if reqs != nil {
					t.Fatalf("requirements = %+v, want nil", reqs)
				}
			case reqs == nil:
				t.Fatal("requirements = nil")
			default:
				if got := quantities(reqs.ResourceRequest); !reflect.DeepEqual(got, tt.request) {
					t.Errorf("resourceRequest = %v, want %v", got, tt.request)
				}
				if reqs.NodeClaim == nil || reqs.NodeClaim.NodeSelector["disk"] != "ssd" {
					t.Errorf("nodeClaim = %+v", reqs.NodeClaim)
				}
				if reqs.PriorityClassName != "" || reqs.Namespace != "" {
					t.Errorf("priorityClassName/namespace set without the gate: %+v", reqs)
				}
			}
		})
	}
}

func TestGetReplicasWorkedExampleJSON(t *testing.T) {
	d := obj(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, namespace: default}
spec:
  replicas: 2
  template:
    spec:
      tolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]
      containers:
      - name: nginx
        image: nginx
        resources:
          limits: {cpu: 500m, memory: 128Mi}`)
	replicas, reqs, err := New().GetReplicas(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"nodeClaim":{"tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]},"resourceRequest":{"cpu":"500m","memory":"128Mi"}}`
	if got := asJSON(t, reqs); replicas != 2 || got != want {
		t.Fatalf("got %d %s\nwant 2 %s", replicas, got, want)
	}
}

func TestGetReplicasPriorityClassNameOption(t *testing.T) {
	d := obj(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  template:
    spec:
      priorityClassName: high
      containers: [{name: a, resources: {requests: {cpu: "1"}}}]`)
	_, reqs, err := New(WithPriorityClassName()).GetReplicas(ctx, d)
	if err != nil || reqs == nil || reqs.PriorityClassName != "high" || reqs.Namespace != "" {
		t.Fatalf("got %+v, %v", reqs, err)
	}
	// Without requirements the gate does not create any.
	empty := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {priorityClassName: high}}}")
	if _, reqs, _ := New(WithPriorityClassName()).GetReplicas(ctx, empty); reqs != nil {
		t.Fatalf("got %+v, want nil", reqs)
	}
}

func TestGetReplicasTypeMismatch(t *testing.T) {
	for _, manifest := range []string{
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: three}",
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: [1]}",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: 7}",
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: 3",
	} {
		if _, _, err := New().GetReplicas(ctx, obj(t, manifest)); err == nil {
			t.Errorf("no error for %q", manifest)
		}
	}
}

func TestReviseReplica(t *testing.T) {
	tests := []struct {
		name, manifest, field string
		want                  any // nil: field stays absent
	}{
		{"Deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 1}", "replicas", int64(7)},
		{"ReplicaSet", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: d}\nspec: {replicas: 1}", "replicas", int64(7)},
		{"StatefulSet", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: d}\nspec: {replicas: 0}", "replicas", int64(7)},
		{"Job sets parallelism", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2, completions: 9}", "parallelism", int64(7)},
		{"absent replicas stay absent", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {}", "replicas", nil},
		{"absent parallelism stays absent", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {completions: 3}", "parallelism", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := obj(t, tt.manifest)
			before := in.DeepCopy()
			out, err := New().ReviseReplica(ctx, in, 7)
			if err != nil {
				t.Fatal(err)
			}
			if out != in {
				t.Error("ReviseReplica must revise the object in place")
			}
			got, found, _ := unstructuredNested(out, "spec", tt.field)
			if tt.want == nil {
				if found || !reflect.DeepEqual(out.Object, before.Object) {
					t.Errorf("object changed: %v", out.Object)
				}
				return
			}
			if got != tt.want {
				t.Errorf("spec.%s = %#v, want %#v", tt.field, got, tt.want)
			}
			if tt.field == "parallelism" && out.Object["spec"].(map[string]any)["completions"] != int64(9) {
				t.Error("completions changed")
			}
		})
	}
	bad := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: '3'}")
	if _, err := New().ReviseReplica(ctx, bad, 2); err == nil {
		t.Error("a non-integer replicas must fail")
	}
	float := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}")
	float.Object["spec"] = map[string]any{"replicas": float64(3)}
	if _, err := New().ReviseReplica(ctx, float, 2); err == nil {
		t.Error("a non-int64 replicas must fail")
	}
}

// The replica handlers convert only the fields requirements read; the
// result must equal that of the whole typed template.
func TestGetReplicasMatchesFullConversion(t *testing.T) {
	d := obj(t, fullDeployment)
	_ = unstructured.SetNestedField(d.Object, map[string]any{"nodeAffinity": map[string]any{
		"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{
			map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}},
		}},
		"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{"weight": int64(1), "preference": map[string]any{}}},
	}}, "spec", "template", "spec", "affinity")
	_ = unstructured.SetNestedField(d.Object, map[string]any{"cpu": "5m"}, "spec", "template", "spec", "overhead")
	var full appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(d.Object, &full); err != nil {
		t.Fatal(err)
	}
	want := AccuratePodRequirements(&full.Spec.Template)
	want.PriorityClassName = full.Spec.Template.Spec.PriorityClassName
	_, got, err := New(WithPriorityClassName()).GetReplicas(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if asJSON(t, got) != asJSON(t, want) || got.NodeClaim.HardNodeAffinity == nil {
		t.Fatalf("got  %s\nwant %s", asJSON(t, got), asJSON(t, want))
	}
}

// fullDeployment is a Deployment with every field requirements read.
const fullDeployment = `apiVersion: apps/v1
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
