package bindingstatus

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// TestAppliedMessageIsBounded: a Work's Applied condition (written by a
// member's agent in Pull mode) of 20 MiB reaches the binding's status
// truncated, with the marker.
func TestAppliedMessageIsBounded(t *testing.T) {
	huge := "Failed to apply all manifests (0/1): " + strings.Repeat("x", 20<<20)
	items, err := aggregateItems([]workv1alpha1.Work{work(t, "member1", appliedCond(metav1.ConditionFalse, huge))}, nginx)
	if err != nil || len(items) != 1 {
		t.Fatalf("items %d, %v", len(items), err)
	}
	msg := items[0].AppliedMessage
	if len(msg) > boundedtext.DefaultLimit || !boundedtext.IsTruncated(msg) || !strings.HasPrefix(msg, "Failed to apply all manifests (0/1): x") {
		t.Errorf("appliedMessage of %d bytes (%.60q...): want at most %d with the marker", len(msg), msg, boundedtext.DefaultLimit)
	}
}
