package native

import (
	"strings"
	"testing"
)

func TestRetain(t *testing.T) {
	tests := []struct {
		name              string
		desired, observed string
		check             map[string]string // path (dot-separated) -> expected JSON
		sameObject        bool              // the result is the desired object itself
		wantErr           bool
	}{{
		name:       "Deployment keeps member replicas with the retain-replicas label",
		desired:    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, labels: {resourcetemplate.karmada.io/retain-replicas: 'true'}}\nspec: {replicas: 2}",
		observed:   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 9}",
		check:      map[string]string{"spec.replicas": "9"},
		sameObject: true,
	}, {
		name:       "Deployment without the label is unchanged",
		desired:    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, labels: {resourcetemplate.karmada.io/retain-replicas: 'yes'}}\nspec: {replicas: 2}",
		observed:   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 9}",
		check:      map[string]string{"spec.replicas": "2"},
		sameObject: true,
	}, {
		name:     "Deployment with the label but no observed replicas fails",
		desired:  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, labels: {resourcetemplate.karmada.io/retain-replicas: 'true'}}\nspec: {replicas: 2}",
		observed: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {}",
		wantErr:  true,
	}, {
		name: "Pod keeps node, service account, volumes and mounts",
		desired: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: a, image: x, volumeMounts: [{name: data, mountPath: /d}]}
  - {name: b, image: img-b}
  initContainers:
  - {name: i, image: z}
  volumes: [{name: data, emptyDir: {}}]`,
		observed: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeName: node-1
  serviceAccountName: default
  containers:
  - {name: a, image: x, volumeMounts: [{name: data, mountPath: /d}, {name: token, mountPath: /var/run/secrets}]}
  - {name: other, image: q, volumeMounts: [{name: token, mountPath: /t}]}
  initContainers:
  - {name: i, image: z, volumeMounts: [{name: token, mountPath: /i}]}
  volumes: [{name: data, emptyDir: {}}, {name: token, projected: {sources: []}}]`,
		check: map[string]string{
			"spec.nodeName":              `"node-1"`,
			"spec.serviceAccountName":    `"default"`,
			"spec.volumes":               `[{"emptyDir":{},"name":"data"},{"name":"token","projected":{"sources":[]}}]`,
			"spec.containers":            `[{"image":"x","name":"a","resources":{},"volumeMounts":[{"mountPath":"/d","name":"data"},{"mountPath":"/var/run/secrets","name":"token"}]},{"image":"img-b","name":"b","resources":{}}]`,
			"spec.initContainers":        `[{"image":"z","name":"i","resources":{},"volumeMounts":[{"mountPath":"/i","name":"token"}]}]`,
			"metadata.creationTimestamp": "null", // normalized output
		},
	}, {
		name:       "Service keeps clusterIP and healthCheckNodePort, not clusterIPs",
		desired:    "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer, ports: [{port: 80, nodePort: 30001}]}",
		observed:   "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer, clusterIP: 10.0.0.7, clusterIPs: [10.0.0.7], healthCheckNodePort: 32000, ports: [{port: 80, nodePort: 30999}]}",
		check:      map[string]string{"spec.clusterIP": `"10.0.0.7"`, "spec.healthCheckNodePort": "32000", "spec.clusterIPs": "null", "spec.ports": `[{"nodePort":30001,"port":80}]`},
		sameObject: true,
	}, {
		name:       "Service with empty observed clusterIP and zero port keeps desired",
		desired:    "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {clusterIP: None}",
		observed:   "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {clusterIP: '', healthCheckNodePort: 0}",
		check:      map[string]string{"spec.clusterIP": `"None"`, "spec.healthCheckNodePort": "null"},
		sameObject: true,
	}, {
		name:       "ServiceAccount merges secrets by name, desired first",
		desired:    "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\nsecrets: [{name: a}, {name: b}]",
		observed:   "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\nsecrets: [{name: b}, {name: sa-token-x}]\nimagePullSecrets: [{name: reg}]",
		check:      map[string]string{"secrets": `[{"name":"a"},{"name":"b"},{"name":"sa-token-x"}]`, "imagePullSecrets": `[{"name":"reg"}]`},
		sameObject: true,
	}, {
		name:       "ServiceAccount without secrets writes null lists",
		desired:    "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}",
		observed:   "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}",
		check:      map[string]string{"secrets": "null", "imagePullSecrets": "null"},
		sameObject: true,
	}, {
		name:       "PVC keeps volumeName",
		desired:    "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {resources: {requests: {storage: 1Gi}}}",
		observed:   "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {volumeName: pv-1}",
		check:      map[string]string{"spec.volumeName": `"pv-1"`, "spec.resources": `{"requests":{"storage":"1Gi"}}`},
		sameObject: true,
	}, {
		name:       "PVC with empty observed volumeName",
		desired:    "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {volumeName: mine}",
		observed:   "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {volumeName: ''}",
		check:      map[string]string{"spec.volumeName": `"mine"`},
		sameObject: true,
	}, {
		name:       "PV keeps claimRef",
		desired:    "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {capacity: {storage: 1Gi}}",
		observed:   "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {claimRef: {name: c, namespace: ns}}",
		check:      map[string]string{"spec.claimRef": `{"name":"c","namespace":"ns"}`},
		sameObject: true,
	}, {
		name:       "Job keeps generated selector and template labels",
		desired:    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {metadata: {labels: {app: x}}}}",
		observed:   "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {selector: {matchLabels: {batch.kubernetes.io/controller-uid: u1}}, template: {metadata: {labels: {app: x, batch.kubernetes.io/controller-uid: u1, job-name: j}}}}",
		check:      map[string]string{"spec.selector.matchLabels": `{"batch.kubernetes.io/controller-uid":"u1"}`, "spec.template.metadata.labels": `{"app":"x","batch.kubernetes.io/controller-uid":"u1","job-name":"j"}`},
		sameObject: true,
	}, {
		name:       "service-account token Secret keeps data",
		desired:    "apiVersion: v1\nkind: Secret\nmetadata: {name: t}\ntype: kubernetes.io/service-account-token\ndata: null",
		observed:   "apiVersion: v1\nkind: Secret\nmetadata: {name: t}\ntype: kubernetes.io/service-account-token\ndata: {token: dG9r}",
		check:      map[string]string{"data": `{"token":"dG9r"}`},
		sameObject: true,
	}, {
		name:       "other Secrets keep desired data",
		desired:    "apiVersion: v1\nkind: Secret\nmetadata: {name: t}\ntype: Opaque\ndata: {a: Yg==}",
		observed:   "apiVersion: v1\nkind: Secret\nmetadata: {name: t}\ntype: Opaque\ndata: {a: Yw==}",
		check:      map[string]string{"data": `{"a":"Yg=="}`},
		sameObject: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			desired, observed := obj(t, tt.desired), obj(t, tt.observed)
			observedBefore := observed.DeepCopy()
			out, err := New().Retain(ctx, desired, observed)
			if tt.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (out == desired) != tt.sameObject {
				t.Errorf("result is the desired object: %v, want %v", out == desired, tt.sameObject)
			}
			for path, want := range tt.check {
				if got := nested(t, out, strings.Split(path, ".")...); got != normalizeJSON(t, want) {
					t.Errorf("%s = %s, want %s", path, got, want)
				}
			}
			if nested(t, observed) != nested(t, observedBefore) {
				t.Error("the observed object was modified")
			}
		})
	}
}

// Retained values must not alias the observed object.
func TestRetainDoesNotAliasObserved(t *testing.T) {
	desired := obj(t, "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}")
	observed := obj(t, "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {claimRef: {name: c}}")
	out, err := New().Retain(ctx, desired, observed)
	if err != nil {
		t.Fatal(err)
	}
	out.Object["spec"].(map[string]any)["claimRef"].(map[string]any)["name"] = "changed"
	if nested(t, observed, "spec", "claimRef", "name") != `"c"` {
		t.Fatal("observed claimRef aliased into the result")
	}
}
