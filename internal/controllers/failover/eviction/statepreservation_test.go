package eviction

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func TestPreservedLabelState(t *testing.T) {
	status := []byte(`{"replicas":2,"big":1000000,"ok":true,"name":"x","list":[{"a":"1"},{"a":"2"}]}`)
	got, err := PreservedLabelState(status, []policyv1alpha1.StatePreservationRule{
		{AliasLabelName: "r", JSONPath: "{.replicas}"},
		{AliasLabelName: "big", JSONPath: "{.big}"},
		{AliasLabelName: "ok", JSONPath: "{.ok}"},
		{AliasLabelName: "name", JSONPath: "{.name}"},
		{AliasLabelName: "all", JSONPath: "{.list[*].a}"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"r": "2", "big": "1e+06", "ok": "true", "name": "x", "all": "1 2"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, bad := range []string{"{.missing}", "{.replicas", "{.list[9]}"} {
		if _, err := PreservedLabelState(status, []policyv1alpha1.StatePreservationRule{{AliasLabelName: "l", JSONPath: bad}}); err == nil {
			t.Errorf("jsonPath %q: no error", bad)
		}
	}
}

func TestPreservedLabelStateOfNeedsCollectedStatus(t *testing.T) {
	b := rb()
	rules := []policyv1alpha1.StatePreservationRule{{AliasLabelName: "r", JSONPath: "{.replicas}"}}
	if _, err := PreservedLabelStateOf(b, "member1", rules); !errors.Is(err, ErrStatusNotCollected) {
		t.Errorf("no status: error %v", err)
	}
	b.Status.AggregatedStatus = []workv1alpha2.AggregatedStatusItem{{ClusterName: "member1", Status: &runtime.RawExtension{Raw: []byte(`{"replicas":3}`)}}}
	got, err := PreservedLabelStateOf(b, "member1", rules)
	if err != nil || got["r"] != "3" {
		t.Errorf("got %v, %v", got, err)
	}
}

// FuzzPreservedLabelState feeds member-controlled status and
// policy-controlled paths: never a panic, and an error or a value per rule.
func FuzzPreservedLabelState(f *testing.F) {
	f.Add([]byte(`{"replicas":2}`), "{.replicas}")
	f.Add([]byte(`{"a":[{"b":1}]}`), "{.a[*].b}")
	f.Add([]byte(`[]`), "{range .items[*]}{.x}{end}")
	f.Add([]byte(`{"a":{"b":"c"}}`), `{.a[?(@.b=="c")]}`)
	f.Fuzz(func(t *testing.T, status []byte, path string) {
		got, err := PreservedLabelState(status, []policyv1alpha1.StatePreservationRule{{AliasLabelName: "l", JSONPath: path}})
		if err == nil && len(got) != 1 {
			t.Fatalf("no error and %d values", len(got))
		}
	})
}
