package layer

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/json"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// FuzzDependencyAnswer decodes a dependency list from JSON as the webhook
// layer decodes an answer and validates it: nothing crashes, an accepted
// list is within MaxDependencies and complete, and an error is short
// whatever the number of entries.
func FuzzDependencyAnswer(f *testing.F) {
	for _, seed := range []string{
		`[{"apiVersion":"v1","kind":"Secret","namespace":"ns","name":"s"}]`,
		`[{"apiVersion":"v1","kind":"ConfigMap","labelSelector":{"matchLabels":{"a":"b"}}}]`,
		`[{"apiVersion":"v1","kind":"ConfigMap","labelSelector":{"matchExpressions":[{"key":"a","operator":"In"}]}}]`,
		`[{},{},{}]`, `[{"kind":"ConfigMap"}]`, `[]`, `null`, `{}`, `[1]`,
		"[" + strings.TrimSuffix(strings.Repeat("{},", MaxDependencies+1), ",") + "]",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var deps []configv1alpha1.DependentObjectReference
		if err := json.UnmarshalCaseSensitivePreserveInts(raw, &deps); err != nil {
			return
		}
		err := ValidateDependencies(deps)
		if err != nil {
			// At most MaxReportedDependencyErrors problems, each a path, a
			// short reason and perhaps a value quoted from the input.
			if n := len(err.Error()); n > MaxReportedDependencyErrors*(len(raw)+1024) {
				t.Fatalf("error of %d bytes for %d references", n, len(deps))
			}
			if len(deps) > MaxDependencies && !errors.Is(err, ErrTooManyDependencies) {
				t.Fatalf("%d references refused for another reason: %v", len(deps), err)
			}
			return
		}
		if len(deps) > MaxDependencies {
			t.Fatalf("%d references accepted", len(deps))
		}
		for i, d := range deps {
			if d.APIVersion == "" || d.Kind == "" || (d.Name == "" && d.LabelSelector == nil) {
				t.Fatalf("incomplete reference %d accepted: %+v", i, d)
			}
		}
	})
}
