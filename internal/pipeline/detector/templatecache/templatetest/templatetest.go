// Package templatetest holds test fixtures of templates as the control
// plane serves them, shared by the detector's packages' tests.
package templatetest

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
)

// ClaimedDeployment is a Deployment as the control plane serves it once
// Propel has claimed it and aggregated its status: API defaults, three
// managedFields entries (creation, claim, status).
const ClaimedDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{
"name":"NAME","namespace":"default","uid":"3f1c1d8e-5b0a-4d55-9a43-5e1d2c6f7a10","resourceVersion":"123456","generation":1,
"creationTimestamp":"2025-01-01T00:00:00Z",
"labels":{"bench":"true","propagationpolicy.karmada.io/permanent-id":"6a1f2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b"},
"annotations":{"propagationpolicy.karmada.io/name":"bench","propagationpolicy.karmada.io/namespace":"default"},
"managedFields":[
{"manager":"bench","operation":"Update","apiVersion":"apps/v1","time":"2025-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:bench":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}},
{"manager":"propel-controller-manager","operation":"Update","apiVersion":"apps/v1","time":"2025-01-01T00:00:01Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:propagationpolicy.karmada.io/name":{},"f:propagationpolicy.karmada.io/namespace":{}},"f:labels":{"f:propagationpolicy.karmada.io/permanent-id":{}}}}},
{"manager":"propel-controller-manager","operation":"Update","apiVersion":"apps/v1","time":"2025-01-01T00:00:09Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:availableReplicas":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}},"subresource":"status"}]},
"spec":{"replicas":2,"selector":{"matchLabels":{"app":"NAME"}},"template":{"metadata":{"labels":{"app":"NAME"}},"spec":{"containers":[{"name":"nginx","image":"nginx","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600},
"status":{"observedGeneration":1,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2}}`

// DecodedDeployment decodes a fresh ClaimedDeployment named name, as a
// watch delivers it (no state shared with other objects).
func DecodedDeployment(tb testing.TB, name string) *unstructured.Unstructured {
	tb.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(strings.ReplaceAll(ClaimedDeployment, "NAME", name))); err != nil {
		tb.Fatal(err)
	}
	return u
}

// Cached is u as the template informers cache it; u is left alone.
func Cached(tb testing.TB, u *unstructured.Unstructured) *templatecache.Template {
	tb.Helper()
	t, err := templatecache.Compact(u.DeepCopy())
	if err != nil {
		tb.Fatal(err)
	}
	return t
}
