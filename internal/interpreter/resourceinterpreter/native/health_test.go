package native

import "testing"

func TestInterpretHealth(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		want     bool
	}{
		{"Deployment rolled out", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, generation: 2}\nspec: {replicas: 3}\nstatus: {observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3}", true},
		{"Deployment old generation", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, generation: 3}\nspec: {replicas: 3}\nstatus: {observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3}", false},
		{"Deployment not all updated", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, generation: 2}\nspec: {replicas: 3}\nstatus: {observedGeneration: 2, updatedReplicas: 2, availableReplicas: 2}", false},
		{"Deployment updated but unavailable", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, generation: 2}\nspec: {replicas: 3}\nstatus: {observedGeneration: 2, updatedReplicas: 3, availableReplicas: 2}", false},
		{"Deployment without spec.replicas", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, generation: 1}\nstatus: {observedGeneration: 1}", true},
		{"StatefulSet rolled out", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s, generation: 1}\nspec: {replicas: 2}\nstatus: {observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2}", true},
		{"StatefulSet not updated", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s, generation: 1}\nspec: {replicas: 2}\nstatus: {observedGeneration: 1, updatedReplicas: 1, availableReplicas: 2}", false},
		{"ReplicaSet available", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r, generation: 1}\nspec: {replicas: 2}\nstatus: {observedGeneration: 1, availableReplicas: 2}", true},
		{"ReplicaSet short", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r, generation: 1}\nspec: {replicas: 2}\nstatus: {observedGeneration: 1, availableReplicas: 1}", false},
		{"ReplicaSet old generation", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r, generation: 2}\nspec: {replicas: 0}\nstatus: {observedGeneration: 1}", false},
		{"DaemonSet rolled out", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds, generation: 1}\nstatus: {observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3}", true},
		{"DaemonSet not updated", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds, generation: 1}\nstatus: {observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 2, numberAvailable: 3}", false},
		{"DaemonSet unavailable", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds, generation: 1}\nstatus: {observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 2}", false},
		{"ClusterIP Service", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: ClusterIP}", true},
		{"LoadBalancer Service with IP", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}\nstatus: {loadBalancer: {ingress: [{ip: ''}, {ip: 1.2.3.4}]}}", true},
		{"LoadBalancer Service with hostname", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}\nstatus: {loadBalancer: {ingress: [{hostname: lb.example}]}}", true},
		{"LoadBalancer Service pending", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}\nstatus: {loadBalancer: {ingress: [{ip: ''}]}}", false},
		{"Ingress with address", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\nstatus: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}", true},
		{"Ingress without address", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}", false},
		{"PVC bound", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nstatus: {phase: Bound}", true},
		{"PVC pending", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nstatus: {phase: Pending}", false},
		{"Pod succeeded", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: {phase: Succeeded}", true},
		{"Pod running and ready", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: {phase: Running, conditions: [{type: Initialized, status: 'True'}, {type: Ready, status: 'True'}]}", true},
		{"Pod running not ready", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: {phase: Running, conditions: [{type: Ready, status: 'False'}]}", false},
		{"Pod pending but ready condition", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: {phase: Pending, conditions: [{type: Ready, status: 'True'}]}", false},
		{"PDB healthy", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nstatus: {currentHealthy: 2, desiredHealthy: 2}", true},
		{"PDB unhealthy", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nstatus: {currentHealthy: 1, desiredHealthy: 2}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().InterpretHealth(ctx, obj(t, tt.manifest))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("healthy = %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := New().InterpretHealth(ctx, obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nstatus: {updatedReplicas: many}")); err == nil {
		t.Error("a malformed status must fail")
	}
}
