package status

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// apiEnablements lists the member's group-versions with their resources
// (subresources excluded), sorted by groupVersion and resource name, and
// the CompleteAPIEnablements condition describing how complete the list
// is. err is the discovery error, if any.
func apiEnablements(d discovery.DiscoveryInterface) ([]clusterv1alpha1.APIEnablement, metav1.Condition, error) {
	_, lists, err := d.ServerGroupsAndResources()
	out := make([]clusterv1alpha1.APIEnablement, 0, len(lists))
	for _, l := range lists {
		if l == nil {
			continue
		}
		e := clusterv1alpha1.APIEnablement{GroupVersion: l.GroupVersion}
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") {
				e.Resources = append(e.Resources, clusterv1alpha1.APIResource{Name: r.Name, Kind: r.Kind})
			}
		}
		sort.Slice(e.Resources, func(i, j int) bool { return e.Resources[i].Name < e.Resources[j].Name })
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GroupVersion < out[j].GroupVersion })
	return out, enablementsCondition(len(out), err), err
}

func enablementsCondition(n int, err error) metav1.Condition {
	c := metav1.Condition{Type: clusterv1alpha1.ClusterConditionCompleteAPIEnablements, Status: metav1.ConditionFalse}
	switch {
	case n == 0:
		c.Reason, c.Message = clusterv1alpha1.APIEnablementsReasonEmpty, clusterv1alpha1.APIEnablementsMessageEmpty
	case err != nil:
		c.Reason, c.Message = clusterv1alpha1.APIEnablementsReasonPartial, fmt.Sprintf(clusterv1alpha1.APIEnablementsMessagePartialFormat, n)
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, clusterv1alpha1.APIEnablementsReasonComplete, clusterv1alpha1.APIEnablementsMessageComplete
	}
	return c
}
