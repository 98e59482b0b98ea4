package builtin

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// testCase is one document of a testdata file, in Karmada's format.
type testCase struct {
	Name          string
	Operation     string
	DesiredObj    map[string]any
	ObservedObj   map[string]any
	StatusItems   []workv1alpha2.AggregatedStatusItem
	InputReplicas int64
	Output        map[string]any
	// Error, when set, is a substring the operation's error must contain.
	Error string
}

func TestEmbeddedLayout(t *testing.T) {
	list, err := Load(FS())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatal("no built-in customization embedded")
	}
	err = fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		parts := strings.Split(p, "/")
		if len(parts) != 4 || parts[3] != FileName {
			t.Errorf("%s: want <group>/<version>/<Kind>/%s", p, FileName)
			return nil
		}
		data, _ := fs.ReadFile(FS(), p)
		rics, err := Decode(data)
		if err != nil {
			return err
		}
		for _, ric := range rics {
			if ric.Spec.Target.APIVersion != parts[0]+"/"+parts[1] || ric.Spec.Target.Kind != parts[2] {
				t.Errorf("%s: target %v does not match the path", p, ric.Spec.Target)
			}
			for _, c := range customization.Check(&ric) {
				if c.Err != nil {
					t.Errorf("%s %s: %v", ric.Name, c.Operation, c.Err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNewIsBuiltinAndSynced(t *testing.T) {
	i := New(customization.Options{})
	if i.Name() != "builtin" {
		t.Errorf("Name() = %q", i.Name())
	}
	gvk := schema.GroupVersionKind{Group: "apps.kruise.io", Version: "v1alpha1", Kind: "CloneSet"}
	for _, op := range []configv1alpha1.InterpreterOperation{
		configv1alpha1.InterpreterOperationInterpretReplica, configv1alpha1.InterpreterOperationReviseReplica,
		configv1alpha1.InterpreterOperationAggregateStatus, configv1alpha1.InterpreterOperationInterpretHealth,
		configv1alpha1.InterpreterOperationInterpretStatus, configv1alpha1.InterpreterOperationInterpretDependency,
	} {
		if ok, err := i.HookEnabled(gvk, op); !ok || err != nil {
			t.Errorf("HookEnabled(CloneSet, %s) = %v, %v", op, ok, err)
		}
	}
	if ok, _ := i.HookEnabled(gvk, configv1alpha1.InterpreterOperationRetain); ok {
		t.Error("CloneSet has no Retain customization")
	}
}

// minCasesPerOperation is the least number of test cases per operation a
// built-in kind defines.
const minCasesPerOperation = 2

// TestCustomizations runs every testdata case against every customization
// of its directory, as Karmada's third-party test runner does.
func TestCustomizations(t *testing.T) {
	root := "customizations"
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(p) != FileName {
			return err
		}
		data, err := os.ReadFile(path.Join(root, p))
		if err != nil {
			return err
		}
		rics, err := Decode(data)
		if err != nil {
			return err
		}
		cases := readCases(t, path.Join(root, path.Dir(p), "testdata"))
		for _, ric := range rics {
			// Every operation the kind defines has cases.
			perOp := map[configv1alpha1.InterpreterOperation]int{}
			for _, tc := range cases {
				op, err := customization.ParseOperation(tc.Operation)
				if err != nil {
					t.Fatalf("%s: %s: %v", p, tc.Name, err)
				}
				perOp[op]++
			}
			for _, op := range customization.Operations() {
				defined := customization.ScriptOf(&ric.Spec.Customizations, op) != ""
				if defined && perOp[op] < minCasesPerOperation {
					t.Errorf("%s: %s has %d test cases, want at least %d", ric.Name, op, perOp[op], minCasesPerOperation)
				}
			}
			for _, tc := range cases {
				t.Run("["+ric.Name+"/"+tc.Operation+"]:"+tc.Name, func(t *testing.T) { runCase(t, ric, tc) })
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readCases(t *testing.T, dir string) []testCase {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var out []testCase
	for _, e := range entries {
		data, err := os.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			js, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			var tc testCase
			if err := json.Unmarshal(js, &tc); err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			out = append(out, tc)
		}
	}
	return out
}

// runCase runs tc through Run, the entry point of `propelctl interpret`
// without -f (built-in layer, then native); ric is the customization
// whose directory holds the case.
func runCase(t *testing.T, ric configv1alpha1.ResourceInterpreterCustomization, tc testCase) {
	op, err := customization.ParseOperation(tc.Operation)
	if err != nil {
		t.Fatal(err)
	}
	args := customization.Args{Replicas: tc.InputReplicas, StatusItems: tc.StatusItems}
	if tc.DesiredObj != nil {
		args.Desired = toUnstructured(t, tc.DesiredObj)
	}
	if tc.ObservedObj != nil {
		args.Observed = toUnstructured(t, tc.ObservedObj)
	}
	if subject, err := args.Subject(op); err == nil && subject.GetKind() != ric.Spec.Target.Kind {
		t.Fatalf("case object is a %s, the directory is for %s", subject.GetKind(), ric.Spec.Target.Kind)
	}
	results, err := Run(context.Background(), op, args)
	if tc.Error != "" {
		if err == nil || !strings.Contains(err.Error(), tc.Error) {
			t.Fatalf("error = %v, want one containing %q", err, tc.Error)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	produced := map[string]bool{}
	for _, r := range results {
		produced[r.Name] = true
		want, ok := tc.Output[r.Name]
		if !ok {
			t.Errorf("%s not checked: %s", r.Name, mustJSON(t, r.Value))
			continue
		}
		compareResult(t, r.Name, want, r.Value)
	}
	for name := range tc.Output {
		if !produced[name] {
			t.Errorf("output %q is not produced by %s", name, op)
		}
	}
}

// nowish matches the timestamps some aggregations stamp with the current
// time; compareResult replaces those within an hour of now by "NOW".
var nowish = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

func maskNow(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = maskNow(e)
		}
	case []any:
		for i, e := range x {
			x[i] = maskNow(e)
		}
	case string:
		if nowish.MatchString(x) {
			if ts, err := time.Parse(time.RFC3339, x); err == nil && time.Since(ts).Abs() < time.Hour {
				return "NOW"
			}
		}
	}
	return v
}

func toUnstructured(t *testing.T, m map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(mustJSON(t, m)); err != nil {
		t.Fatal(err)
	}
	return u
}

func mustJSON(t *testing.T, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// compareResult compares got with the expected value decoded into got's
// own type (so quantities compare by value), or, for objects and raw
// statuses, as generic JSON.
func compareResult(t *testing.T, name string, want, got any) {
	wantJSON := mustJSON(t, want)
	switch g := got.(type) {
	case []configv1alpha1.DependentObjectReference:
		var w []configv1alpha1.DependentObjectReference
		decodeInto(t, wantJSON, &w)
		sortDeps(w)
		sortDeps(g)
		if !apiequality.Semantic.DeepEqual(w, g) {
			t.Errorf("%s = %s, want %s", name, mustJSON(t, g), wantJSON)
		}
	case *unstructured.Unstructured:
		compareGeneric(t, name, wantJSON, mustJSON(t, g.Object))
	case *runtime.RawExtension:
		compareGeneric(t, name, wantJSON, g.Raw)
	default:
		w := reflect.New(reflect.TypeOf(got))
		decodeInto(t, wantJSON, w.Interface())
		if !apiequality.Semantic.DeepEqual(w.Elem().Interface(), got) {
			t.Errorf("%s = %s, want %s", name, mustJSON(t, got), wantJSON)
		}
	}
}

func compareGeneric(t *testing.T, name string, wantJSON, gotJSON []byte) {
	var w, g any
	if err := utiljson.Unmarshal(wantJSON, &w); err != nil {
		t.Fatal(err)
	}
	if err := utiljson.Unmarshal(gotJSON, &g); err != nil {
		t.Fatal(err)
	}
	g = maskNow(g)
	if !apiequality.Semantic.DeepEqual(w, g) {
		t.Errorf("%s = %s, want %s", name, mustJSON(t, g), wantJSON)
	}
}

func decodeInto(t *testing.T, data []byte, v any) {
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

func sortDeps(d []configv1alpha1.DependentObjectReference) {
	sort.Slice(d, func(i, j int) bool {
		a, b := d[i], d[j]
		return a.APIVersion+"/"+a.Kind+"/"+a.Namespace+"/"+a.Name < b.APIVersion+"/"+b.Kind+"/"+b.Namespace+"/"+b.Name
	})
}

func TestLoadFailsWhole(t *testing.T) {
	good := "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: a\nspec:\n  target: {apiVersion: v1, kind: A}\n  customizations: {}\n---\n"
	fsys := fstest.MapFS{
		"g/v1/A/customizations.yaml": {Data: []byte(good + "# empty document\n")},
		"g/v1/A/testdata/x.yaml":     {Data: []byte("not: [a customization")},
	}
	list, err := Load(fsys)
	if err != nil || len(list) != 1 || list[0].Name != "a" {
		t.Fatalf("got %v, %v", list, err)
	}
	fsys["g/v1/B/customizations.yaml"] = &fstest.MapFile{Data: []byte("spec: [broken")}
	if list, err := Load(fsys); err == nil || list != nil {
		t.Errorf("a broken file loaded %v, %v", list, err)
	}
}
