package status

import (
	"context"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// health is the outcome of one probe: online when the member answered at
// all, healthy when it answered 200.
type health struct{ online, healthy bool }

// probe GETs /readyz, falling back to /healthz when /readyz is not served.
func probe(ctx context.Context, kube discovery.DiscoveryInterface) health {
	code, err := getStatus(ctx, kube, "/readyz")
	if code == http.StatusNotFound {
		code, err = getStatus(ctx, kube, "/healthz")
	}
	if code == 0 { // no HTTP answer at all
		if l := log.FromContext(ctx).V(1); l.Enabled() {
			l.Error(boundedtext.Error(err), "member health probe failed")
		}
		return health{}
	}
	return health{online: true, healthy: code == http.StatusOK}
}

func getStatus(ctx context.Context, kube discovery.DiscoveryInterface, path string) (int, error) {
	code := 0
	err := kube.RESTClient().Get().AbsPath(path).Do(ctx).StatusCode(&code).Error()
	return code, err
}

// observedReady is the Ready condition a probe result calls for.
func observedReady(h health) metav1.Condition {
	c := metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionFalse}
	switch {
	case !h.online:
		c.Reason, c.Message = clusterv1alpha1.ClusterReasonNotReachable, clusterv1alpha1.ClusterMessageNotReachable
	case !h.healthy:
		c.Reason, c.Message = clusterv1alpha1.ClusterReasonNotReady, clusterv1alpha1.ClusterMessageNotReady
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, clusterv1alpha1.ClusterReasonReady, clusterv1alpha1.ClusterMessageReady
	}
	return c
}

// clientFailedReady is the Ready condition when no member client could be
// built (missing endpoint or credentials).
func clientFailedReady(err error) metav1.Condition {
	return metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionFalse,
		Reason: clusterv1alpha1.ClusterReasonStatusCollectionFailed, Message: clusterv1alpha1.ClusterMessageClientFailedPrefix + boundedtext.String(err.Error())}
}
