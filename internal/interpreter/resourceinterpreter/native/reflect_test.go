package native

import (
	"strings"
	"testing"
)

const genAnnotation = "annotations: {resourcetemplate.karmada.io/generation: '3'}"

func TestReflectStatus(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		want     string // exact JSON; "" means nil
		wantErr  string
	}{{
		name: "Deployment keeps counters, generations first",
		manifest: `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, generation: 5, ` + genAnnotation + `}
status:
  observedGeneration: 5
  replicas: 3
  updatedReplicas: 3
  readyReplicas: 2
  availableReplicas: 2
  unavailableReplicas: 1
  conditions: [{type: Available, status: 'True'}]
  collisionCount: 1`,
		want: `{"generation":5,"resourceTemplateGeneration":3,"observedGeneration":5,"replicas":3,"updatedReplicas":3,"readyReplicas":2,"availableReplicas":2,"unavailableReplicas":1}`,
	}, {
		name:     "Deployment with an all-zero result reflects nil",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, annotations: {resourcetemplate.karmada.io/generation: '0'}}\nstatus: {conditions: []}",
		want:     "",
	}, {
		name:     "Deployment without status reflects nil even without the annotation",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}",
		want:     "",
	}, {
		name:     "Deployment without the generation annotation fails",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nstatus: {replicas: 1}",
		wantErr:  "resourcetemplate.karmada.io/generation",
	}, {
		name:     "Deployment with a non-integer generation annotation fails",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, annotations: {resourcetemplate.karmada.io/generation: x}}\nstatus: {replicas: 1}",
		wantErr:  "invalid syntax",
	}, {
		name:     "Deployment with a non-object status fails",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, " + genAnnotation + "}\nstatus: [1]",
		wantErr:  "expected an object",
	}, {
		name:     "ReplicaSet always has replicas",
		manifest: "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r, generation: 2, " + genAnnotation + "}\nstatus: {fullyLabeledReplicas: 4, observedGeneration: 2}",
		want:     `{"generation":2,"resourceTemplateGeneration":3,"replicas":0,"observedGeneration":2}`,
	}, {
		name:     "DaemonSet",
		manifest: "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds, generation: 1, " + genAnnotation + "}\nstatus: {currentNumberScheduled: 2, desiredNumberScheduled: 2, numberReady: 1, observedGeneration: 1, updatedNumberScheduled: 2, numberAvailable: 1, numberUnavailable: 1, collisionCount: 3}",
		want:     `{"generation":1,"resourceTemplateGeneration":3,"currentNumberScheduled":2,"numberMisscheduled":0,"desiredNumberScheduled":2,"numberReady":1,"observedGeneration":1,"updatedNumberScheduled":2,"numberAvailable":1,"numberUnavailable":1}`,
	}, {
		name:     "StatefulSet drops observedGeneration",
		manifest: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s, generation: 4, " + genAnnotation + "}\nstatus: {observedGeneration: 4, replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, currentRevision: r1}",
		want:     `{"generation":4,"resourceTemplateGeneration":3,"replicas":2,"readyReplicas":2,"currentReplicas":2,"updatedReplicas":2,"availableReplicas":0}`,
	}, {
		name:     "StatefulSet without the annotation fails",
		manifest: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nstatus: {replicas: 2}",
		wantErr:  "resourcetemplate.karmada.io/generation",
	}, {
		name:     "LoadBalancer Service",
		manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}\nstatus: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}, conditions: [{type: X, status: 'True'}]}",
		want:     `{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}`,
	}, {
		name:     "ClusterIP Service reflects nil",
		manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: ClusterIP}\nstatus: {loadBalancer: {}}",
		want:     "",
	}, {
		name:     "Service without type reflects nil",
		manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nstatus: {loadBalancer: {}}",
		want:     "",
	}, {
		name:     "Ingress reflects its whole status",
		manifest: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\nstatus: {loadBalancer: {ingress: [{hostname: a.example}]}, extra: 1}",
		want:     `{"extra":1,"loadBalancer":{"ingress":[{"hostname":"a.example"}]}}`,
	}, {
		name:     "Job",
		manifest: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nstatus: {active: 1, succeeded: 2, failed: 3, ready: 1, startTime: '2024-01-01T00:00:00Z', conditions: [{type: Complete, status: 'True'}], uncountedTerminatedPods: {}}",
		want:     `{"conditions":[{"type":"Complete","status":"True","lastProbeTime":null,"lastTransitionTime":null}],"startTime":"2024-01-01T00:00:00Z","active":1,"succeeded":2,"failed":3}`,
	}, {
		name:     "PodDisruptionBudget",
		manifest: "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nstatus: {observedGeneration: 3, disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, conditions: [{type: DisruptionAllowed, status: 'True', reason: r, message: m, lastTransitionTime: '2024-01-01T00:00:00Z'}]}",
		want:     `{"disruptionsAllowed":1,"currentHealthy":3,"desiredHealthy":2,"expectedPods":3}`,
	}, {
		name:     "HorizontalPodAutoscaler",
		manifest: "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nstatus: {currentReplicas: 0, desiredReplicas: 0, lastScaleTime: '2024-01-01T00:00:00Z'}",
		// currentMetrics has no omitempty in autoscaling/v2: the typed
		// struct Karmada marshals emits it as null.
		want: `{"desiredReplicas":0,"currentMetrics":null}`,
	}, {
		name:     "other kinds reflect their whole status",
		manifest: "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w}\nstatus: {phase: Ready, count: 2}",
		want:     `{"count":2,"phase":"Ready"}`,
	}, {
		name:     "other kinds without status reflect nil",
		manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}",
		want:     "",
	}, {
		name:     "HPA in another version falls back to the whole status",
		manifest: "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nstatus: {currentReplicas: 2, desiredReplicas: 3, lastScaleTime: '2024-01-01T00:00:00Z'}",
		want:     `{"currentReplicas":2,"desiredReplicas":3,"lastScaleTime":"2024-01-01T00:00:00Z"}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := New().ReflectStatus(ctx, obj(t, tt.manifest))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if raw != nil {
					t.Fatalf("got %s, want nil", raw.Raw)
				}
				return
			}
			if raw == nil || string(raw.Raw) != tt.want {
				t.Fatalf("got  %s\nwant %s", rawString(raw), tt.want)
			}
		})
	}
}
