package enforcement

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// bindingWebhook is a configuration with one webhook of the given rule.
func bindingWebhook(groups, versions, resources []string, ops ...admissionregistrationv1.OperationType) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "validating-config"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "resourcebinding.karmada.io",
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: ops,
				Rule:       admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources},
			}},
		}},
	}
}

func TestValidatesResourceBindingUpdates(t *testing.T) {
	work, all := []string{"work.karmada.io"}, []string{"*"}
	for _, tc := range []struct {
		name string
		cfg  *admissionregistrationv1.ValidatingWebhookConfiguration
		want bool
	}{
		{"karmada-webhook's rule", bindingWebhook(work, all, []string{"resourcebindings"}, admissionregistrationv1.Create, admissionregistrationv1.Update), true},
		{"every operation", bindingWebhook(work, []string{"v1alpha2"}, []string{"resourcebindings"}, admissionregistrationv1.OperationAll), true},
		{"every resource and group", bindingWebhook(all, all, []string{"*/*"}, admissionregistrationv1.Update), true},
		{"create only", bindingWebhook(work, all, []string{"resourcebindings"}, admissionregistrationv1.Create), false},
		{"cluster bindings only", bindingWebhook(work, all, []string{"clusterresourcebindings"}, admissionregistrationv1.Update), false},
		{"status subresource only", bindingWebhook(work, all, []string{"resourcebindings/status"}, admissionregistrationv1.Update), false},
		{"another group", bindingWebhook([]string{"policy.karmada.io"}, all, []string{"*"}, admissionregistrationv1.Update), false},
		{"another version", bindingWebhook(work, []string{"v1alpha1"}, []string{"resourcebindings"}, admissionregistrationv1.Update), false},
		{"no webhooks", &admissionregistrationv1.ValidatingWebhookConfiguration{}, false},
	} {
		if got := ValidatesResourceBindingUpdates(tc.cfg); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// With a ResourceBinding webhook installed (karmada-webhook, which
// charges the write itself) Admit charges nothing, so a 10m placement
// against a 10m quota is charged once, by the webhook, and not refused as
// 20m; without it Admit charges as before.
func TestAdmitLeavesTheChargeToTheBindingWebhook(t *testing.T) {
	ctx := context.Background()
	frq := &policyv1alpha1.FederatedResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "quota"},
		Spec:       policyv1alpha1.FederatedResourceQuotaSpec{Overall: cpuList("10m")},
	}
	spec := &workv1alpha2.ResourceBindingSpec{
		Replicas:            1,
		ReplicaRequirements: &workv1alpha2.ReplicaRequirements{ResourceRequest: cpuList("10m")},
		Clusters:            []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 1}},
	}
	used := func(c client.Client) string {
		got := &policyv1alpha1.FederatedResourceQuota{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(frq), got); err != nil {
			t.Fatal(err)
		}
		return got.Status.OverallUsed.Cpu().String()
	}

	webhook := bindingWebhook([]string{"work.karmada.io"}, []string{"*"}, []string{"resourcebindings"}, admissionregistrationv1.Create, admissionregistrationv1.Update)
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(frq.DeepCopy(), webhook).WithStatusSubresource(frq).Build()
	if err := (&Admitter{Client: c}).Admit(ctx, "ns", &workv1alpha2.ResourceBindingSpec{}, spec); err != nil {
		t.Fatalf("with the webhook installed: %v", err)
	}
	if got := used(c); got != "0" {
		t.Fatalf("with the webhook installed the scheduler charged overallUsed to %s", got)
	}

	c = fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(frq.DeepCopy()).WithStatusSubresource(frq).Build()
	if err := (&Admitter{Client: c}).Admit(ctx, "ns", &workv1alpha2.ResourceBindingSpec{}, spec); err != nil {
		t.Fatalf("without the webhook: %v", err)
	}
	if got := used(c); got != "10m" {
		t.Fatalf("without the webhook overallUsed is %s, want 10m", got)
	}
}

func cpuList(q string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
}
