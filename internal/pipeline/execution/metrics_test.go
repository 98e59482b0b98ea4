package execution

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/metrics"
)

func withVersion(rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetResourceVersion(rv)
	return u
}

// TestUpdateResult maps an update decision to Karmada's operationResult.
func TestUpdateResult(t *testing.T) {
	for _, tc := range []struct {
		name              string
		op                operation
		observed, updated *unstructured.Unstructured
		want              string
	}{
		{"up to date: no write", opNone, withVersion("5"), withVersion("5"), metrics.UpdateNone},
		{"write failed", opUpdated, withVersion("5"), nil, metrics.UpdateNone},
		{"write kept the version", opUpdated, withVersion("5"), withVersion("5"), metrics.UpdateUnchanged},
		{"write changed the object", opUpdated, withVersion("5"), withVersion("6"), metrics.UpdateUpdated},
	} {
		if got := updateResult(tc.op, tc.observed, tc.updated); got != tc.want {
			t.Errorf("%s: updateResult = %q, want %q", tc.name, got, tc.want)
		}
	}
}
