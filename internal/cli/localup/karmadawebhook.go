package localup

import (
	"context"
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/cli/localenv"
)

// karmadaWebhook is one admission webhook karmada-webhook serves: at
// /<kind>-<name> (kind "mutate" or "validate") for resource in group.
type karmadaWebhook struct {
	name, group, resource string
	scope                 admissionregistrationv1.ScopeType
	ops                   []admissionregistrationv1.OperationType
	timeoutSeconds        int32
	objectSelector        *metav1.LabelSelector
}

var (
	createUpdate = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	createOnly   = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	namespaced   = admissionregistrationv1.NamespacedScope
	clusterScope = admissionregistrationv1.ClusterScope
)

// karmadaMutatingWebhooks and karmadaValidatingWebhooks are the webhooks
// Karmada's installers register for karmada-webhook (the configurations
// mutating-config and validating-config).
var karmadaMutatingWebhooks = []karmadaWebhook{
	{name: "propagationpolicy", group: "policy.karmada.io", resource: "propagationpolicies", scope: namespaced, ops: createUpdate},
	{name: "clusterpropagationpolicy", group: "policy.karmada.io", resource: "clusterpropagationpolicies", scope: clusterScope, ops: createUpdate},
	{name: "overridepolicy", group: "policy.karmada.io", resource: "overridepolicies", scope: namespaced, ops: createUpdate},
	{name: "resourcebinding", group: "work.karmada.io", resource: "resourcebindings", scope: namespaced, ops: createOnly},
	{name: "clusterresourcebinding", group: "work.karmada.io", resource: "clusterresourcebindings", scope: clusterScope, ops: createOnly},
	{name: "work", group: "work.karmada.io", resource: "works", scope: namespaced, ops: createUpdate},
	{name: "federatedhpa", group: "autoscaling.karmada.io", resource: "federatedhpas", scope: namespaced, ops: createUpdate},
	{name: "multiclusterservice", group: "networking.karmada.io", resource: "multiclusterservices", scope: namespaced, ops: createUpdate},
}

var karmadaValidatingWebhooks = []karmadaWebhook{
	{name: "propagationpolicy", group: "policy.karmada.io", resource: "propagationpolicies", scope: namespaced, ops: createUpdate},
	{name: "clusterpropagationpolicy", group: "policy.karmada.io", resource: "clusterpropagationpolicies", scope: clusterScope, ops: createUpdate},
	{name: "overridepolicy", group: "policy.karmada.io", resource: "overridepolicies", scope: namespaced, ops: createUpdate},
	{name: "clusteroverridepolicy", group: "policy.karmada.io", resource: "clusteroverridepolicies", scope: clusterScope, ops: createUpdate},
	{name: "resourceinterpreterwebhookconfiguration", group: "config.karmada.io", resource: "resourceinterpreterwebhookconfigurations", scope: clusterScope, ops: createUpdate},
	{name: "resourceinterpretercustomization", group: "config.karmada.io", resource: "resourceinterpretercustomizations", scope: clusterScope, ops: createUpdate, timeoutSeconds: 10},
	{name: "federatedresourcequota", group: "policy.karmada.io", resource: "federatedresourcequotas", scope: namespaced, ops: createUpdate},
	{name: "multiclusteringress", group: "networking.karmada.io", resource: "multiclusteringresses", scope: namespaced, ops: createUpdate},
	{name: "federatedhpa", group: "autoscaling.karmada.io", resource: "federatedhpas", scope: namespaced, ops: createUpdate},
	{name: "cronfederatedhpa", group: "autoscaling.karmada.io", resource: "cronfederatedhpas", scope: namespaced, ops: createUpdate},
	{name: "multiclusterservice", group: "networking.karmada.io", resource: "multiclusterservices", scope: namespaced, ops: createUpdate},
	{name: "resourcedeletionprotection", group: "*", resource: "*", scope: admissionregistrationv1.AllScopes,
		ops: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
		objectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "resourcetemplate.karmada.io/deletion-protected", Operator: metav1.LabelSelectorOpExists},
		}}},
	{name: "resourcebinding", group: "work.karmada.io", resource: "resourcebindings", scope: namespaced, ops: createUpdate},
	{name: "clustertaintpolicy", group: "policy.karmada.io", resource: "clustertaintpolicies", scope: clusterScope, ops: createUpdate},
}

// registerKarmadaWebhook points Karmada's webhook configurations at the
// karmada-webhook local-up started.
func registerKarmadaWebhook(ctx context.Context, c componentEnv) error {
	base := "https://127.0.0.1:" + strconv.Itoa(c.port) + "/"
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "mutating-config"},
	}
	for _, w := range karmadaMutatingWebhooks {
		mutating.Webhooks = append(mutating.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: w.name + ".karmada.io", ClientConfig: w.clientConfig(base+"mutate-"+w.name, c.env.PKI.CAPEM),
			Rules: w.rules(), FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: ptr.To(w.timeout()), ObjectSelector: w.objectSelector,
		})
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "validating-config"},
	}
	for _, w := range karmadaValidatingWebhooks {
		validating.Webhooks = append(validating.Webhooks, admissionregistrationv1.ValidatingWebhook{
			Name: w.name + ".karmada.io", ClientConfig: w.clientConfig(base+"validate-"+w.name, c.env.PKI.CAPEM),
			Rules: w.rules(), FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: ptr.To(w.timeout()), ObjectSelector: w.objectSelector,
		})
	}
	var objs []*unstructured.Unstructured
	for _, o := range []runtime.Object{mutating, validating} {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return err
		}
		objs = append(objs, &unstructured.Unstructured{Object: u})
	}
	return localenv.ApplyObjects(ctx, c.env.ControlPlane.Config, objs)
}

func (w karmadaWebhook) clientConfig(url string, caPEM []byte) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM}
}

func (w karmadaWebhook) rules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: w.ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{w.group}, APIVersions: []string{"*"}, Resources: []string{w.resource}, Scope: ptr.To(w.scope),
		},
	}}
}

func (w karmadaWebhook) timeout() int32 {
	if w.timeoutSeconds == 0 {
		return 3
	}
	return w.timeoutSeconds
}
