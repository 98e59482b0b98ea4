package federatedhpa

import (
	"context"
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/templatescale"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/templatebinding"
	"github.com/propel-mc/propel/internal/shared/workcluster"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func (r *Reconciler) scale(ctx context.Context, key string, fhpa *autoscalingv1alpha1.FederatedHPA, status *autoscalingv2.HorizontalPodAutoscalerStatus) error {
	ref := fhpa.Spec.ScaleTargetRef
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return failScale(reasonFailedGetScale, fmt.Errorf("invalid API version in scale target reference: %w", err))
	}
	gvk := gv.WithKind(ref.Kind)
	gvr, err := r.mapping(gvk)
	if err != nil {
		return failScale(reasonFailedGetScale, fmt.Errorf("unable to determine resource for scale target reference: %w", err))
	}
	target := &unstructured.Unstructured{}
	target.SetGroupVersionKind(gvk)
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: fhpa.Namespace, Name: ref.Name}, target); err != nil {
		return failScale(reasonFailedGetScaleTargetRef, fmt.Errorf("get %s %s/%s: %w", ref.Kind, fhpa.Namespace, ref.Name, err))
	}
	clusters, err := r.targetClusters(ctx, fhpa, gvk)
	if err != nil {
		return err
	}
	agg := r.aggregate(ctx, fhpa, clusters, gvr)
	if agg.spec == 0 {
		return failScale(reasonFailedGetScale, fmt.Errorf("failed to get replicas in any of clusters, possibly because all of clusters are not ready (skipped: %s)", strings.Join(agg.skipped, ", ")))
	}
	templateScale, err := templatescale.Get(ctx, r.client, gvk, client.ObjectKey{Namespace: fhpa.Namespace, Name: ref.Name})
	if err != nil {
		return fmt.Errorf("get the scale of %s %s/%s: %w", ref.Kind, fhpa.Namespace, ref.Name, err)
	}
	current := templateScale.Replicas()
	setCondition(status, autoscalingv2.AbleToScale, corev1.ConditionTrue, reasonSucceededGetScale, "the HPA controller was able to get the target's current scale")
	now := r.now()
	r.norm.Seed(key, current, now)

	desired, reason, metricErr := r.decide(ctx, key, fhpa, status, agg, current, now)
	r.reportSamples(fhpa, &agg.report)
	if metricErr != nil && desired < 0 {
		status.CurrentReplicas, status.DesiredReplicas = current, current
		r.recorder.Event(fhpa, corev1.EventTypeWarning, EventReasonFailedComputeMetricsReplicas, boundedtext.Error(metricErr).Error())
		return metricErr
	}
	status.CurrentReplicas = current
	if desired == current {
		status.DesiredReplicas = current
		return metricErr
	}
	if err := templateScale.Update(ctx, r.client, desired); err != nil {
		r.recorder.Eventf(fhpa, corev1.EventTypeWarning, EventReasonFailedRescale, "New size: %d; reason: %s; error: %v", desired, reason, boundedtext.Error(err))
		setCondition(status, autoscalingv2.AbleToScale, corev1.ConditionFalse, reasonFailedUpdateScale, "the HPA controller was unable to update the target scale: %v", boundedtext.Error(err))
		status.DesiredReplicas = current
		return fmt.Errorf("update the scale of %s %s/%s: %w", ref.Kind, fhpa.Namespace, ref.Name, err)
	}
	setCondition(status, autoscalingv2.AbleToScale, corev1.ConditionTrue, reasonSucceededRescale, "the HPA controller was able to update the target scale to %d", desired)
	r.recorder.Eventf(fhpa, corev1.EventTypeNormal, EventReasonSuccessfulRescale, "New size: %d; reason: %s", desired, reason)
	r.norm.RecordScale(key, current, desired, fhpa.Spec.Behavior, now)
	status.DesiredReplicas = desired
	status.LastScaleTime = &metav1.Time{Time: now}
	log.FromContext(ctx).Info("rescaled", "from", current, "to", desired, "reason", reason)
	return metricErr
}

// targetClusters are the binding's scheduled clusters that are Ready. The
// binding is the template's own (<name>-<kind> in its namespace; Karmada
// searches every namespace by the policy's permanent id).
func (r *Reconciler) targetClusters(ctx context.Context, fhpa *autoscalingv1alpha1.FederatedHPA, gvk schema.GroupVersionKind) ([]*clusterv1alpha1.Cluster, error) {
	ref := fhpa.Spec.ScaleTargetRef
	rb := &workv1alpha2.ResourceBinding{}
	if err := r.client.Get(ctx, templatebinding.Key(fhpa.Namespace, ref.Kind, ref.Name), rb); err != nil {
		return nil, failScale(reasonFailedGetBinding, fmt.Errorf("get the binding of %s %s/%s: %w", ref.Kind, fhpa.Namespace, ref.Name, err))
	}
	res := rb.Spec.Resource
	if res.Name != ref.Name || res.Kind != gvk.Kind || res.APIVersion != gvk.GroupVersion().String() {
		return nil, failScale(reasonFailedGetBinding, fmt.Errorf("binding %s/%s is not the binding of %s %s", rb.Namespace, rb.Name, ref.Kind, ref.Name))
	}
	if len(rb.Spec.Clusters) == 0 {
		return nil, failScale(reasonFailedGetTargetClusters, fmt.Errorf("binding %s/%s is not scheduled to any cluster", rb.Namespace, rb.Name))
	}
	var out []*clusterv1alpha1.Cluster
	for _, tc := range rb.Spec.Clusters {
		c := &clusterv1alpha1.Cluster{}
		if err := r.client.Get(ctx, client.ObjectKey{Name: tc.Name}, c); err != nil {
			return nil, failScale(reasonFailedGetTargetClusters, fmt.Errorf("get cluster %s: %w", tc.Name, err))
		}
		if workcluster.IsReady(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// aggregate adds up the member scales and gathers the member pods; a
// member that cannot be read is skipped (logged), as in Karmada.
func (r *Reconciler) aggregate(ctx context.Context, fhpa *autoscalingv1alpha1.FederatedHPA, clusters []*clusterv1alpha1.Cluster, gvr schema.GroupVersionResource) *aggregate {
	agg := &aggregate{}
	for _, c := range clusters {
		st, err := r.readMember(ctx, c, gvr, fhpa.Namespace, fhpa.Spec.ScaleTargetRef.Name)
		if err != nil {
			log.FromContext(ctx).Info("skipping a member the workload's scale could not be read from", "cluster", c.Name, "error", boundedtext.Error(err).Error())
			agg.skipped = append(agg.skipped, c.Name)
			continue
		}
		agg.spec += st.spec
		agg.status += st.status
		if agg.selector == "" {
			agg.selector = st.rawSel
		}
		switch {
		case st.rawSel == "":
			r.recorder.Event(fhpa, corev1.EventTypeWarning, EventReasonSelectorRequired, "selector is required")
			agg.selectErr = fmt.Errorf("the scale of cluster %s has no selector", c.Name)
		case st.selector == nil:
			r.recorder.Eventf(fhpa, corev1.EventTypeWarning, reasonInvalidSelector, "couldn't convert selector into a corresponding internal selector object: %s", st.rawSel)
			agg.selectErr = fmt.Errorf("invalid selector %q in cluster %s", st.rawSel, c.Name)
		default:
			agg.pods = append(agg.pods, st.pods...)
		}
		agg.members = append(agg.members, st)
	}
	return agg
}
