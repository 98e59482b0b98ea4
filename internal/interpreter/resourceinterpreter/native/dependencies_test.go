package native

import (
	"reflect"
	"strings"
	"testing"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const depsPodSpec = `
        serviceAccountName: runner
        imagePullSecrets: [{name: registry}]
        containers:
        - name: app
          envFrom: [{configMapRef: {name: app-config}}]
        volumes:
        - {name: data, persistentVolumeClaim: {claimName: data}}
        - {name: www, persistentVolumeClaim: {claimName: www}}`

func TestGetDependencies(t *testing.T) {
	podRefs := func(ns string, claims ...string) []configv1alpha1.DependentObjectReference {
		out := []configv1alpha1.DependentObjectReference{
			ref("ConfigMap", ns, "app-config"), ref("Secret", ns, "registry"), ref("ServiceAccount", ns, "runner"),
		}
		for _, c := range claims {
			out = append(out, ref("PersistentVolumeClaim", ns, c))
		}
		return out
	}
	workload := func(apiVersion, kind string) string {
		return "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata: {name: w, namespace: prod}\nspec:\n  template:\n    spec:" + depsPodSpec
	}
	tests := []struct {
		name     string
		manifest string
		want     []configv1alpha1.DependentObjectReference
		wantErr  string
	}{
		{"Deployment", workload("apps/v1", "Deployment"), podRefs("prod", "data", "www"), ""},
		{"ReplicaSet", workload("apps/v1", "ReplicaSet"), podRefs("prod", "data", "www"), ""},
		{"DaemonSet", workload("apps/v1", "DaemonSet"), podRefs("prod", "data", "www"), ""},
		{"Job", workload("batch/v1", "Job"), podRefs("prod", "data", "www"), ""},
		{
			"StatefulSet drops claims from volumeClaimTemplates",
			workload("apps/v1", "StatefulSet") + "\n  volumeClaimTemplates: [{metadata: {name: www}}]",
			podRefs("prod", "data"), "",
		},
		{
			"CronJob uses the job template",
			"apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, namespace: prod}\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:" + strings.ReplaceAll(depsPodSpec, "\n        ", "\n            "),
			podRefs("prod", "data", "www"), "",
		},
		{
			"Pod",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: prod}\nspec:" + strings.ReplaceAll(depsPodSpec, "\n        ", "\n  "),
			podRefs("prod", "data", "www"), "",
		},
		{
			"cluster-scoped or namespace-less template keeps an empty namespace",
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec: {template: {spec: {serviceAccountName: runner}}}",
			[]configv1alpha1.DependentObjectReference{ref("ServiceAccount", "", "runner")}, "",
		},
		{"workload without dependencies", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec: {template: {spec: {containers: [{name: a}]}}}", nil, ""},
		{
			"Ingress: one Secret per TLS entry, not deduplicated",
			"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: web}\nspec: {tls: [{secretName: cert}, {secretName: cert, hosts: [a]}]}",
			[]configv1alpha1.DependentObjectReference{ref("Secret", "web", "cert"), ref("Secret", "web", "cert")}, "",
		},
		{
			"Ingress TLS entry without a secret fails validation",
			"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: web}\nspec: {tls: [{hosts: [a]}]}",
			nil, "dependencies[0].name",
		},
		{
			"ServiceImport: derived Service and its EndpointSlices",
			"apiVersion: multicluster.x-k8s.io/v1alpha1\nkind: ServiceImport\nmetadata: {name: db, namespace: data}\nspec: {type: ClusterSetIP}",
			[]configv1alpha1.DependentObjectReference{
				ref("Service", "data", "derived-db"),
				{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice", Namespace: "data",
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/service-name": "derived-db"}}},
			}, "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().GetDependencies(ctx, obj(t, tt.manifest))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}
