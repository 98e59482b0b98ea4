package native

import (
	"testing"
)

const serverMetadata = `
  creationTimestamp: '2024-01-01T00:00:00Z'
  deletionTimestamp: '2024-01-02T00:00:00Z'
  deletionGracePeriodSeconds: 30
  generation: 4
  managedFields: [{manager: kubectl}]
  resourceVersion: '123'
  selfLink: /x
  uid: 0000-1111
  ownerReferences: [{apiVersion: v1, kind: X, name: y, uid: z}]
  finalizers: [a/b]`

func TestPrune(t *testing.T) {
	tests := []struct {
		name, manifest, want string
		hooks                []PruneHook
	}{{
		name:     "server-set metadata and status of any kind",
		manifest: "apiVersion: example.io/v1\nkind: Widget\nmetadata:\n  name: w\n  labels: {a: b}" + serverMetadata + "\nspec: {size: 1}\nstatus: {ready: true}",
		want:     "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w, labels: {a: b}}\nspec: {size: 1}",
	}, {
		name:     "Deployment revision annotations",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, annotations: {deployment.kubernetes.io/revision: '3', deployment.kubernetes.io/revision-history: '1,2', keep: me}}",
		want:     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, annotations: {keep: me}}",
	}, {
		name: "Job generated selector and labels",
		manifest: `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  ttlSecondsAfterFinished: 100
  selector: {matchLabels: {controller-uid: u, batch.kubernetes.io/controller-uid: u, app: x}}
  template: {metadata: {labels: {controller-uid: u, job-name: j, batch.kubernetes.io/controller-uid: u, batch.kubernetes.io/job-name: j, app: x}}}`,
		want: `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  ttlSecondsAfterFinished: 100
  selector: {matchLabels: {app: x}}
  template: {metadata: {labels: {app: x}}}`,
	}, {
		name:     "Job with a manual selector keeps its labels; TTL hook",
		manifest: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {manualSelector: true, ttlSecondsAfterFinished: 5, selector: {matchLabels: {controller-uid: u}}, template: {metadata: {labels: {job-name: j}}}}",
		want:     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {manualSelector: true, selector: {matchLabels: {controller-uid: u}}, template: {metadata: {labels: {job-name: j}}}}",
		hooks:    []PruneHook{RemoveJobTTLSeconds},
	}, {
		name:     "TTL hook ignores other kinds",
		manifest: "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {ttlSecondsAfterFinished: 5}",
		want:     "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {ttlSecondsAfterFinished: 5}",
		hooks:    []PruneHook{RemoveJobTTLSeconds},
	}, {
		name:     "service-account token Secret",
		manifest: "apiVersion: v1\nkind: Secret\nmetadata: {name: t, annotations: {kubernetes.io/service-account.uid: u, kubernetes.io/service-account.name: sa}}\ntype: kubernetes.io/service-account-token\ndata: {token: eA==}",
		want:     "apiVersion: v1\nkind: Secret\nmetadata: {name: t, annotations: {kubernetes.io/service-account.name: sa}}\ntype: kubernetes.io/service-account-token\ndata: null",
	}, {
		name:     "opaque Secret keeps data",
		manifest: "apiVersion: v1\nkind: Secret\nmetadata: {name: t}\ntype: Opaque\ndata: {token: eA==}",
		want:     "apiVersion: v1\nkind: Secret\nmetadata: {name: t}\ntype: Opaque\ndata: {token: eA==}",
	}, {
		name:     "ServiceAccount token secrets, with Karmada's skip after a removal",
		manifest: "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\nsecrets: [{name: sa-token-1}, {name: sa-token-2}, {name: keep}, {name: sa-token-3}, {name: other-token-x}]",
		want:     "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\nsecrets: [{name: sa-token-2}, {name: keep}, {name: other-token-x}]",
	}, {
		name:     "Service cluster IPs",
		manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {clusterIP: 10.0.0.1, clusterIPs: [10.0.0.1], ports: [{port: 80}]}",
		want:     "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}",
	}, {
		name:     "headless Service keeps None",
		manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {clusterIP: None, clusterIPs: [None]}",
		want:     "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {clusterIP: None, clusterIPs: [None]}",
	}, {
		name:     "PVC selected node",
		manifest: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c, annotations: {volume.kubernetes.io/selected-node: n1, keep: me}}",
		want:     "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c, annotations: {keep: me}}",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := obj(t, tt.manifest)
			if err := Prune(o, tt.hooks...); err != nil {
				t.Fatal(err)
			}
			if got, want := nested(t, o), nested(t, obj(t, tt.want)); got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestPruneJobTypeErrors(t *testing.T) {
	for _, manifest := range []string{
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {manualSelector: 'yes'}",
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {selector: {matchLabels: {a: 1}}}",
	} {
		if err := Prune(obj(t, manifest)); err == nil {
			t.Errorf("no error for %q", manifest)
		}
	}
}
