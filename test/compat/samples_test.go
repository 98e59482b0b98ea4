// Package compat checks that Karmada's own manifests apply to a control
// plane with Propel's CRDs and survive a strict round trip through Propel's
// Go types without losing or changing a field.
package compat

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	sigsjson "sigs.k8s.io/json"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/pkg/apis"
	"github.com/propel-mc/propel/test/harness"
)

var env *harness.Env

func TestMain(m *testing.M) {
	harness.Main(m, harness.Options{Members: []localenv.MemberOptions{}}, &env)
}

func samplesDir(t *testing.T) string {
	shared := harness.SharedDir()
	if shared == "" {
		t.Skip("../shared is absent: the Karmada samples cannot be read")
	}
	return filepath.Join(shared, "reference", "karmada-samples")
}

// loadSamples reads every YAML document under dir, filling the install-time
// placeholders of the webhook sample the way Karmada's install scripts do.
func loadSamples(t *testing.T, dir string) map[string]*unstructured.Unstructured {
	placeholders := strings.NewReplacer(
		"{{karmada-interpreter-webhook-example-svc-address}}", "127.0.0.1",
		"{{caBundle}}", base64.StdEncoding.EncodeToString(env.PKI.CAPEM),
	)
	out := map[string]*unstructured.Unstructured{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(placeholders.Replace(string(data)))), 4096)
		for i := 0; ; i++ {
			obj := map[string]interface{}{}
			if err := dec.Decode(&obj); err != nil {
				if err.Error() == "EOF" {
					break
				}
				t.Fatalf("%s: %v", path, err)
			}
			if len(obj) == 0 {
				continue
			}
			rel, _ := filepath.Rel(dir, path)
			out[rel+"#"+string(rune('0'+i))] = &unstructured.Unstructured{Object: obj}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestKarmadaSamplesRoundTrip(t *testing.T) {
	samples := loadSamples(t, samplesDir(t))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dyn := dynamic.NewForConfigOrDie(env.ControlPlane.Config)

	// CRDs first: the other samples are instances of them.
	keys := make([]string, 0, len(samples))
	for k := range samples {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ci, cj := samples[keys[i]].GetKind() == "CustomResourceDefinition", samples[keys[j]].GetKind() == "CustomResourceDefinition"
		if ci != cj {
			return ci
		}
		return keys[i] < keys[j]
	})
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, k := range keys {
		if samples[k].GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := fromUnstructured(samples[k], crd); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		crds = append(crds, crd)
	}
	if err := localenv.InstallCRDs(ctx, env.ControlPlane.Config, crds); err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(env.ControlPlane.Config)))

	karmadaKinds := 0
	for _, k := range keys {
		sample := samples[k]
		t.Run(k, func(t *testing.T) {
			gvk := sample.GroupVersionKind()
			// An installed CRD reaches discovery shortly after it is
			// Established: read discovery again until it is there.
			var mapping *meta.RESTMapping
			harness.Eventually(t, fmt.Sprintf("discovery serves %s", gvk), func(context.Context) (bool, error) {
				m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
				if meta.IsNoMatchError(err) {
					mapper.Reset()
					return false, nil
				}
				mapping = m
				return err == nil, err
			}, harness.Timeout(time.Minute))
			var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
			if mapping.Scope.Name() == "namespace" {
				if sample.GetNamespace() == "" {
					sample.SetNamespace("default")
				}
				ri = dyn.Resource(mapping.Resource).Namespace(sample.GetNamespace())
			}
			var got *unstructured.Unstructured
			var err error
			if sample.GetKind() == "CustomResourceDefinition" {
				got, err = ri.Get(ctx, sample.GetName(), metav1.GetOptions{})
			} else if got, err = ri.Create(ctx, sample, metav1.CreateOptions{}); err == nil {
				got, err = ri.Get(ctx, sample.GetName(), metav1.GetOptions{})
			}
			if err != nil {
				t.Fatalf("apply %s %s: %v", gvk.Kind, sample.GetName(), err)
			}
			want := sample.Object
			if sample.GetKind() == "CustomResourceDefinition" {
				// A CRD's status and timestamps are the server's; its spec must survive.
				want, got = map[string]interface{}{"spec": want["spec"]}, &unstructured.Unstructured{Object: map[string]interface{}{"spec": got.Object["spec"]}}
			}
			if missing := lostFields(want, got.Object, ""); len(missing) > 0 {
				t.Errorf("the API server dropped or changed fields of %s: %s", k, strings.Join(missing, ", "))
			}
			if strings.HasSuffix(gvk.Group, ".karmada.io") {
				karmadaKinds++
				roundTripTyped(t, gvk, got)
			}
		})
	}
	if karmadaKinds < 5 {
		t.Fatalf("only %d Karmada objects among the samples; the samples directory looks wrong", karmadaKinds)
	}
}

// roundTripTyped decodes obj strictly into Propel's Go type for gvk and
// encodes it again; the result must equal what the server returned.
func roundTripTyped(t *testing.T, gvk schema.GroupVersionKind, obj *unstructured.Unstructured) {
	t.Helper()
	typed, err := apis.Scheme.New(gvk)
	if err != nil {
		t.Fatalf("Propel has no Go type for %s: %v", gvk, err)
	}
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	strictErrs, err := sigsjson.UnmarshalStrict(raw, typed)
	if err != nil {
		t.Fatalf("decode %s: %v", gvk.Kind, err)
	}
	if len(strictErrs) > 0 {
		t.Fatalf("strict decode of %s: %v", gvk.Kind, strictErrs)
	}
	again, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]interface{}
	if err := json.Unmarshal(again, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(normalize(obj.Object), normalize(back)) {
		t.Errorf("round trip through Go types changed %s:\nserver: %s\ntyped:  %s", gvk.Kind, raw, again)
	}
}

// lostFields lists the paths of want that are absent from or different in got.
func lostFields(want, got interface{}, path string) []string {
	switch w := want.(type) {
	case map[string]interface{}:
		g, ok := got.(map[string]interface{})
		if !ok {
			return []string{path}
		}
		var out []string
		for k, v := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, path+"."+k)
				continue
			}
			out = append(out, lostFields(v, gv, path+"."+k)...)
		}
		return out
	case []interface{}:
		g, ok := got.([]interface{})
		if !ok || len(g) != len(w) {
			return []string{path}
		}
		var out []string
		for i := range w {
			out = append(out, lostFields(w[i], g[i], path+"[]")...)
		}
		return out
	default:
		if !reflect.DeepEqual(normalize(want), normalize(got)) {
			return []string{path}
		}
		return nil
	}
}

// normalize maps numbers to float64 so that YAML ints and JSON floats compare.
func normalize(v interface{}) interface{} {
	raw, _ := json.Marshal(v)
	var out interface{}
	_ = json.Unmarshal(raw, &out)
	return out
}

func fromUnstructured(u *unstructured.Unstructured, into interface{}) error {
	raw, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}
