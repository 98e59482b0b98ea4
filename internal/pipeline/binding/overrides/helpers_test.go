package overrides

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// sampleFile reads a Karmada sample from ../shared, skipping the test when
// the reference material is absent.
func sampleFile(t *testing.T, rel string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "..", "shared", "reference", "karmada-samples", rel)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("%s is absent: the Karmada samples cannot be read", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return obj
}

func overridePolicy(t *testing.T, doc string) *policyv1alpha1.OverridePolicy {
	t.Helper()
	op := &policyv1alpha1.OverridePolicy{}
	if err := yaml.UnmarshalStrict([]byte(doc), op); err != nil {
		t.Fatal(err)
	}
	return op
}

func cluster(name string, labels map[string]string) *clusterv1alpha1.Cluster {
	return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func nestedString(t *testing.T, obj *unstructured.Unstructured, path ...string) string {
	t.Helper()
	v, _, err := unstructured.NestedString(obj.Object, path...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

const deploymentYAML = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  labels: {app: nginx}
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: nginx}
    spec:
      initContainers:
      - name: init
        image: busybox:1.36
      containers:
      - name: nginx
        image: nginx:1.25
        args: ["--a", "--b"]
      - name: sidecar
        image: docker.io/envoyproxy/envoy:v1.30
`

func unstructuredSlice(obj map[string]interface{}, path ...string) ([]interface{}, bool, error) {
	return unstructured.NestedSlice(obj, path...)
}

func unstructuredInt(obj map[string]interface{}, path ...string) (int64, bool, error) {
	return unstructured.NestedInt64(obj, path...)
}
