// Package federatedhpa is Karmada's federatedHPA-controller
// ("federatedHorizontalPodAutoscaler"): it scales a resource template from
// the metrics of its pods in the member clusters the template is scheduled
// to, with Kubernetes' HPA algorithm (calibrated for Duplicated
// placements), behaviours and stabilisation windows (package replicas),
// and writes the template's scale subresource; the usual propagation then
// carries the new count to the members.
//
// Propel reads the members' metrics.k8s.io APIs directly, where Karmada
// reads them through karmada-metrics-adapter on its API server.
package federatedhpa

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/autoscaling/federatedhpa/replicas"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/controllermanager/recorder"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/metrics"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/templatebinding"
	"github.com/propel-mc/propel/pkg/workcluster"
)

// RBAC: FederatedHPAs and their status; the target template's scale
// subresource (the template itself is read through the detector's rule);
// the target's binding and clusters are read.
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=federatedhpas,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=federatedhpas/status,verbs=update
// +kubebuilder:rbac:groups=core,resources=replicationcontrollers/scale,verbs=get;update
// +kubebuilder:rbac:groups=apps;batch;autoscaling;policy;networking.k8s.io;discovery.k8s.io;storage.k8s.io;scheduling.k8s.io;node.k8s.io;apps.kruise.io;argoproj.io;batch.volcano.sh;flink.apache.org;helm.toolkit.fluxcd.io;kustomize.toolkit.fluxcd.io;source.toolkit.fluxcd.io;kubeflow.org;kyverno.io;ray.io;sparkoperator.k8s.io,resources=*/scale,verbs=get;update
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

// Options are Karmada's --horizontal-pod-autoscaler-* flags and the
// member cache sync timeout.
type Options struct {
	SyncPeriod              time.Duration
	DownscaleStabilization  time.Duration
	Tolerance               float64
	CPUInitializationPeriod time.Duration
	InitialReadinessDelay   time.Duration
	ClusterCacheSyncTimeout time.Duration
}

// Reconciler scales templates from FederatedHPAs; its requests are
// FederatedHPAs.
type Reconciler struct {
	client    client.Client
	dynamic   dynamic.Interface
	recorder  record.EventRecorder
	clients   membercluster.ClientSource
	informers *membercluster.Informers
	opts      Options
	calc      replicas.Calculator
	norm      *replicas.Normalizer

	// mapping resolves a kind on the control plane (the manager's REST
	// mapper).
	mapping func(schema.GroupVersionKind) (schema.GroupVersionResource, error)

	mu        sync.Mutex
	selectors map[string]selectorOf
	now       func() time.Time
}

type selectorOf struct {
	namespace string
	selector  labels.Selector
}

// New returns the controller; SetupWithManager wires it.
func New(clients membercluster.ClientSource, informers *membercluster.Informers, opts Options) *Reconciler {
	return &Reconciler{
		clients: clients, informers: informers, opts: opts,
		calc:      replicas.Calculator{Tolerance: opts.Tolerance, CPUInitializationPeriod: opts.CPUInitializationPeriod, InitialReadinessDelay: opts.InitialReadinessDelay},
		norm:      &replicas.Normalizer{DownscaleStabilization: opts.DownscaleStabilization},
		selectors: map[string]selectorOf{}, now: time.Now,
	}
}

// SetupWithManager registers the controller with mgr: FederatedHPA
// generation changes; every reconcile requeues itself after the sync
// period.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client = mgr.GetClient()
	dyn, err := dynamic.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	r.dynamic = dyn
	r.recorder = recorder.For(mgr, names.FederatedHPAControllerName)
	mapper := mgr.GetRESTMapper()
	r.mapping = func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return schema.GroupVersionResource{}, err
		}
		return m.Resource, nil
	}
	return builder.ControllerManagedBy(mgr).Named(names.FederatedHPAControllerName).
		For(&autoscalingv1alpha1.FederatedHPA{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// scaleError is a failure with the AbleToScale=False reason and the event
// reason it records.
type scaleError struct {
	condition, event string
	err              error
}

func (e *scaleError) Error() string { return e.err.Error() }
func (e *scaleError) Unwrap() error { return e.err }

func failScale(reason string, err error) error {
	event := reason
	if reason == reasonFailedGetBinding {
		event = "FailedGetBindings"
	}
	return &scaleError{condition: reason, event: event, err: err}
}

// Condition reasons (Kubernetes' HPA and Karmada's).
const (
	reasonFailedGetScale          = "FailedGetScale"
	reasonFailedGetScaleTargetRef = "FailedGetScaleTargetRef"
	reasonFailedGetBinding        = "FailedGetBinding"
	reasonFailedGetTargetClusters = "FailedGetTargetClusters"
	reasonSucceededGetScale       = "SucceededGetScale"
	reasonSucceededRescale        = "SucceededRescale"
	reasonFailedUpdateScale       = "FailedUpdateScale"
	reasonValidMetricFound        = "ValidMetricFound"
	reasonInvalidSelector         = "InvalidSelector"
	reasonAmbiguousSelector       = "AmbiguousSelector"
	reasonInvalidMetricSourceType = "InvalidMetricSourceType"

	// Event reasons.
	EventReasonSuccessfulRescale            = "SuccessfulRescale"
	EventReasonFailedRescale                = "FailedRescale"
	EventReasonFailedComputeMetricsReplicas = "FailedComputeMetricsReplicas"
	EventReasonFailedUpdateStatus           = "FailedUpdateStatus"
	EventReasonSelectorRequired             = "SelectorRequired"
)

// Reconcile runs the phases: target, binding, clusters, member scales and
// pods, template scale, decision, rescale, status.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	fhpa := &autoscalingv1alpha1.FederatedHPA{}
	if err := r.client.Get(ctx, req.NamespacedName, fhpa); err != nil {
		if client.IgnoreNotFound(err) == nil {
			r.norm.Forget(key)
			r.mu.Lock()
			delete(r.selectors, key)
			r.mu.Unlock()
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	withDefaults(fhpa)
	status := fhpa.Status.DeepCopy()
	start := time.Now()
	err := r.scale(ctx, key, fhpa, status)
	metrics.FederatedHPAProcessed(start, err)
	if err != nil {
		var se *scaleError
		if errors.As(err, &se) {
			setCondition(status, autoscalingv2.AbleToScale, corev1.ConditionFalse, se.condition, "the HPA controller was unable to get the target's current scale: %v", boundedtext.Error(se.err))
			r.recorder.Event(fhpa, corev1.EventTypeWarning, se.event, boundedtext.Error(se.err).Error())
		}
	}
	if statusErr := r.writeStatus(ctx, fhpa, status); statusErr != nil && err == nil {
		err = statusErr
	}
	if err != nil {
		return reconcile.Result{}, boundedtext.Error(err)
	}
	return reconcile.Result{RequeueAfter: r.opts.SyncPeriod}, nil
}

// withDefaults applies Karmada's mutating webhook defaults in memory:
// minReplicas 1, and a cpu 80% utilization metric when none is given.
func withDefaults(fhpa *autoscalingv1alpha1.FederatedHPA) {
	if fhpa.Spec.MinReplicas == nil {
		fhpa.Spec.MinReplicas = ptr.To[int32](1)
	}
	if len(fhpa.Spec.Metrics) == 0 {
		fhpa.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)},
		}}}
	}
}

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
	if _, err := r.dynamic.Resource(gvr).Namespace(fhpa.Namespace).Get(ctx, ref.Name, metav1.GetOptions{}); err != nil {
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
	templateScale, err := r.dynamic.Resource(gvr).Namespace(fhpa.Namespace).Get(ctx, ref.Name, metav1.GetOptions{}, "scale")
	if err != nil {
		return fmt.Errorf("get the scale of %s %s/%s: %w", ref.Kind, fhpa.Namespace, ref.Name, err)
	}
	current64, _, _ := unstructured.NestedInt64(templateScale.Object, "spec", "replicas")
	current := int32(current64)
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
	if err := unstructured.SetNestedField(templateScale.Object, int64(desired), "spec", "replicas"); err != nil {
		return err
	}
	if _, err := r.dynamic.Resource(gvr).Namespace(fhpa.Namespace).Update(ctx, templateScale, metav1.UpdateOptions{}, "scale"); err != nil {
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

// decide returns the replicas to set and why; -1 when the metrics could
// not give a count (the error says why).
func (r *Reconciler) decide(ctx context.Context, key string, fhpa *autoscalingv1alpha1.FederatedHPA, status *autoscalingv2.HorizontalPodAutoscalerStatus,
	agg *aggregate, current int32, now time.Time) (int32, string, error) {
	minR, maxR := *fhpa.Spec.MinReplicas, fhpa.Spec.MaxReplicas
	switch {
	case current > maxR:
		return maxR, "Current number of replicas above Spec.MaxReplicas", nil
	case current < minR:
		return minR, "Current number of replicas below Spec.MinReplicas", nil
	}
	proposal, metric, err := r.proposal(ctx, key, fhpa, status, agg, current, now)
	if proposal < 0 {
		return -1, "", err
	}
	reason := ""
	switch {
	case proposal > current:
		reason = metric + " above target"
	case proposal < current:
		reason = "All metrics below target"
	}
	out := r.norm.Normalize(key, current, proposal, replicas.Bounds{Min: minR, Max: maxR}, fhpa.Spec.Behavior, now)
	setCondition(status, autoscalingv2.AbleToScale, corev1.ConditionTrue, out.StabilizedReason, "%s", out.StabilizedMessage)
	limited := corev1.ConditionFalse
	if out.Limited {
		limited = corev1.ConditionTrue
	}
	setCondition(status, autoscalingv2.ScalingLimited, limited, out.LimitedReason, "%s", out.LimitedMessage)
	return out.Replicas, reason, err
}

// proposal is the largest replica count the metrics propose, with that
// metric's name; -1 when every metric failed (or some failed and the rest
// would scale down).
func (r *Reconciler) proposal(ctx context.Context, key string, fhpa *autoscalingv1alpha1.FederatedHPA, status *autoscalingv2.HorizontalPodAutoscalerStatus,
	agg *aggregate, current int32, now time.Time) (int32, string, error) {
	fail := func(reason string, err error) (int32, string, error) {
		setCondition(status, autoscalingv2.ScalingActive, corev1.ConditionFalse, reason, "the HPA target's pods could not be selected: %v", boundedtext.Error(err))
		return -1, "", err
	}
	if agg.selectErr != nil && len(agg.pods) == 0 {
		return fail(reasonInvalidSelector, agg.selectErr)
	}
	selector, err := labels.Parse(agg.selector)
	if err != nil {
		r.recorder.Eventf(fhpa, corev1.EventTypeWarning, reasonInvalidSelector, "couldn't convert selector into a corresponding internal selector object: %v", err)
		return fail(reasonInvalidSelector, err)
	}
	if other := r.claimSelector(key, fhpa.Namespace, selector, agg.pods); other != "" {
		err := fmt.Errorf("pods by selector %s are controlled by multiple HPAs: [%s %s]", agg.selector, key, other)
		r.recorder.Event(fhpa, corev1.EventTypeWarning, reasonAmbiguousSelector, err.Error())
		return fail(reasonAmbiguousSelector, err)
	}
	calibration := float64(agg.spec) / float64(max(current, 1))
	status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(fhpa.Spec.Metrics))
	best, bestName := int32(-1), ""
	var firstErr error
	var firstReason string
	failed := 0
	for i, spec := range fhpa.Spec.Metrics {
		n, name, ms, reason, err := r.metricProposal(ctx, fhpa, spec, agg, current, calibration, now)
		if err != nil {
			failed++
			r.recorder.Eventf(fhpa, corev1.EventTypeWarning, reason, "%v", boundedtext.Error(err))
			if firstErr == nil {
				firstErr, firstReason = err, reason
			}
			continue
		}
		status.CurrentMetrics[i] = ms
		if n > best {
			best, bestName = n, name
		}
	}
	if failed == len(fhpa.Spec.Metrics) || (failed > 0 && best < current) {
		setCondition(status, autoscalingv2.ScalingActive, corev1.ConditionFalse, firstReason, "the HPA was unable to compute the replica count: %v", boundedtext.Error(firstErr))
		return -1, "", fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %w", failed, len(fhpa.Spec.Metrics), firstErr)
	}
	setCondition(status, autoscalingv2.ScalingActive, corev1.ConditionTrue, reasonValidMetricFound, "the HPA was able to successfully calculate a replica count from %s", bestName)
	if firstErr != nil {
		return best, bestName, fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %w", failed, len(fhpa.Spec.Metrics), firstErr)
	}
	return best, bestName, nil
}

// claimSelector records key's selector and returns another FederatedHPA
// of the namespace whose selector also picks one of pods.
func (r *Reconciler) claimSelector(key, namespace string, selector labels.Selector, pods []*corev1.Pod) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.selectors[key] = selectorOf{namespace: namespace, selector: selector}
	others := make([]string, 0, len(r.selectors))
	for k := range r.selectors {
		others = append(others, k)
	}
	slices.Sort(others)
	for _, k := range others {
		s := r.selectors[k]
		if k == key || s.namespace != namespace {
			continue
		}
		for _, pod := range pods {
			if s.selector.Matches(labels.Set(pod.Labels)) {
				return k
			}
		}
	}
	return ""
}

// metricProposal computes one metric's proposal, its name in events, its
// status entry, or the reason it failed.
func (r *Reconciler) metricProposal(ctx context.Context, fhpa *autoscalingv1alpha1.FederatedHPA, spec autoscalingv2.MetricSpec, agg *aggregate,
	current int32, calibration float64, now time.Time) (int32, string, autoscalingv2.MetricStatus, string, error) {
	switch spec.Type {
	case autoscalingv2.ResourceMetricSourceType:
		if spec.Resource == nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetResourceMetric", errors.New("resource metric without a resource source")
		}
		n, name, cur, err := r.resourceProposal(ctx, fhpa.Namespace, spec.Resource.Name, "", spec.Resource.Target, agg, current, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetResourceMetric", err
		}
		return n, name, autoscalingv2.MetricStatus{Type: spec.Type, Resource: &autoscalingv2.ResourceMetricStatus{Name: spec.Resource.Name, Current: cur}}, "", nil
	case autoscalingv2.ContainerResourceMetricSourceType:
		if spec.ContainerResource == nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetContainerResourceMetric", errors.New("container resource metric without a source")
		}
		cr := spec.ContainerResource
		n, name, cur, err := r.resourceProposal(ctx, fhpa.Namespace, cr.Name, cr.Container, cr.Target, agg, current, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetContainerResourceMetric", err
		}
		return n, strings.Replace(name, "resource", "container resource", 1), autoscalingv2.MetricStatus{Type: spec.Type,
			ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{Name: cr.Name, Container: cr.Container, Current: cur}}, "", nil
	case autoscalingv2.PodsMetricSourceType:
		if spec.Pods == nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetPodsMetric", errors.New("pods metric without a pods source")
		}
		n, ms, err := r.podsProposal(ctx, fhpa.Namespace, spec.Pods, agg, current, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetPodsMetric", err
		}
		return n, "pods metric " + spec.Pods.Metric.Name, ms, "", nil
	case autoscalingv2.ObjectMetricSourceType:
		if spec.Object == nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetObjectMetric", errors.New("object metric without an object source")
		}
		n, name, ms, err := r.objectProposal(ctx, fhpa.Namespace, spec.Object, agg, current, calibration)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetObjectMetric", err
		}
		return n, name, ms, "", nil
	default:
		return 0, "", autoscalingv2.MetricStatus{}, reasonInvalidMetricSourceType, fmt.Errorf("unknown metric source type %q", spec.Type)
	}
}

func (r *Reconciler) resourceProposal(ctx context.Context, namespace string, res corev1.ResourceName, container string, target autoscalingv2.MetricTarget,
	agg *aggregate, current int32, calibration float64, now time.Time) (int32, string, autoscalingv2.MetricValueStatus, error) {
	start := time.Now()
	samples, err := resourceSamples(ctx, agg, namespace, res, container)
	metrics.FederatedHPAMetricPulled(metrics.MetricTypeResource, start, err)
	if err != nil {
		return 0, "", autoscalingv2.MetricValueStatus{}, err
	}
	switch {
	case target.AverageValue != nil:
		n, avg, err := r.calc.PlainAverage(current, replicas.MilliValue(*target.AverageValue), res, samples, agg.pods, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricValueStatus{}, fmt.Errorf("failed to get %s usage: %w", res, err)
		}
		return n, fmt.Sprintf("%s resource", res), autoscalingv2.MetricValueStatus{AverageValue: resource.NewMilliQuantity(avg, resource.DecimalSI)}, nil
	case target.AverageUtilization != nil:
		u, err := r.calc.ResourceUtilization(current, *target.AverageUtilization, res, container, samples, agg.pods, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricValueStatus{}, fmt.Errorf("failed to get %s utilization: %w", res, err)
		}
		return u.Replicas, fmt.Sprintf("%s resource utilization (percentage of request)", res),
			autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To(u.Utilization), AverageValue: resource.NewMilliQuantity(u.RawAverage, resource.DecimalSI)}, nil
	default:
		return 0, "", autoscalingv2.MetricValueStatus{}, fmt.Errorf("invalid resource metric source: neither a utilization target nor a value target is set")
	}
}

// setCondition updates one condition in place; the transition time moves
// only when the status flips.
func setCondition(status *autoscalingv2.HorizontalPodAutoscalerStatus, t autoscalingv2.HorizontalPodAutoscalerConditionType, s corev1.ConditionStatus, reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for i := range status.Conditions {
		c := &status.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != s {
			c.LastTransitionTime = metav1.Now()
		}
		c.Status, c.Reason, c.Message = s, reason, msg
		return
	}
	status.Conditions = append(status.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{
		Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: metav1.Now(),
	})
}

// writeStatus writes the status when it changed.
func (r *Reconciler) writeStatus(ctx context.Context, fhpa *autoscalingv1alpha1.FederatedHPA, status *autoscalingv2.HorizontalPodAutoscalerStatus) error {
	if apiequality.Semantic.DeepEqual(&fhpa.Status, status) {
		return nil
	}
	updated := fhpa.DeepCopy()
	updated.Status = *status
	if err := r.client.Status().Update(ctx, updated); err != nil {
		r.recorder.Event(fhpa, corev1.EventTypeWarning, EventReasonFailedUpdateStatus, boundedtext.Error(err).Error())
		return fmt.Errorf("update the status of federatedhpa %s/%s: %w", fhpa.Namespace, fhpa.Name, err)
	}
	return nil
}
