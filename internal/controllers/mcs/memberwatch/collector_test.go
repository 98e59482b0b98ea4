package memberwatch

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// TestWorkCachesBeforeTheMember: the Work of a Cluster that is gone gives
// no caches and no error (nothing to watch), and that of an unready
// Cluster an error naming both, so the Work is retried; neither reaches
// the member.
func TestWorkCachesBeforeTheMember(t *testing.T) {
	unready := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member2"}}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(unready).Build()
	col := NewCollector("test", Deps{Client: c, APIReader: c}, 0)
	gone := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1", Name: "w"}}
	if caches, err := col.WorkCaches(context.Background(), gone, EndpointSlices); caches != nil || err != nil {
		t.Errorf("gone cluster: caches %v, error %v; want neither", caches, err)
	}
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member2", Name: "w"}}
	if _, err := col.WorkCaches(context.Background(), work, EndpointSlices); err == nil || !strings.Contains(err.Error(), "work karmada-es-member2/w: cluster member2 is not ready") {
		t.Errorf("unready cluster: error %v", err)
	}
}
