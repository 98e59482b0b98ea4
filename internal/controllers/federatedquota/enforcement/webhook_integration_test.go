package enforcement_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/federatedquota/enforcement"
	"github.com/propel-mc/propel/internal/controllers/federatedquota/usage"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	"github.com/propel-mc/propel/internal/scheduling/scheduler"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// chargingWebhook models karmada-webhook's ResourceBinding validation
// with FederatedQuotaEnforcement: on an update it charges the change of
// usage between the old and the new binding to the namespace's quotas,
// or refuses it with 403 QuotaExceeded.
func chargingWebhook(t *testing.T, c client.Client) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		review := &admissionv1.AdmissionReview{}
		if err := json.NewDecoder(r.Body).Decode(review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := review.Request
		resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
		if req.Operation == admissionv1.Update {
			var rb, old workv1alpha2.ResourceBinding
			if err := json.Unmarshal(req.Object.Raw, &rb); err != nil {
				t.Error(err)
			}
			if err := json.Unmarshal(req.OldObject.Raw, &old); err != nil {
				t.Error(err)
			}
			if delta := usage.Delta(usage.OfBinding(&old.Spec), usage.OfBinding(&rb.Spec)); len(delta) > 0 {
				var quotas policyv1alpha1.FederatedResourceQuotaList
				if err := c.List(r.Context(), &quotas, client.InNamespace(rb.Namespace)); err != nil {
					t.Error(err)
				}
				for i := range quotas.Items {
					frq := &quotas.Items[i]
					used, exceeded := usage.Charge(frq.Namespace, frq.Name, frq.Spec.Overall, frq.Status.OverallUsed, usage.Restrict(delta, frq.Spec.Overall))
					if exceeded != nil {
						resp.Allowed = false
						resp.Result = &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: usage.Reason, Message: exceeded.Error()}
						break
					}
					frq.Status.OverallUsed = used
					if err := c.Status().Update(r.Context(), frq); err != nil {
						t.Error(err)
					}
				}
			}
		}
		review.Response = resp
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	})
}

// TestQuotaChargedOnceWithBindingWebhook runs the scheduler's quota check
// beside a validating webhook that charges ResourceBinding updates as
// karmada-webhook does: a placement that fills the quota exactly is
// charged once (by the webhook) and scheduled, and one beyond it is
// refused by the webhook with Scheduled=False, reason QuotaExceeded.
func TestQuotaChargedOnceWithBindingWebhook(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := env.Client
	cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "quota-member"}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}}
	if err := c.Create(ctx, cl); err != nil {
		t.Fatal(err)
	}
	cl.Status = clusterv1alpha1.ClusterStatus{
		APIEnablements: []clusterv1alpha1.APIEnablement{{GroupVersion: "apps/v1", Resources: []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}}}},
		Conditions:     []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "ready", LastTransitionTime: metav1.Now()}},
	}
	if err := c.Status().Update(ctx, cl); err != nil {
		t.Fatal(err)
	}
	frq := &policyv1alpha1.FederatedResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "team-quota"},
		Spec:       policyv1alpha1.FederatedResourceQuotaSpec{Overall: cpu("4")},
	}
	if err := c.Create(ctx, frq); err != nil {
		t.Fatal(err)
	}
	srv := webhooktest.NewServer(t, chargingWebhook(t, c))
	url := srv.URL + "/validate-resourcebinding"
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "validating-config"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "resourcebinding.karmada.io",
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"work.karmada.io"}, APIVersions: []string{"*"}, Resources: []string{"resourcebindings"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
			}},
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: srv.CA.PEM},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNoneOnDryRun),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if err := c.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), vwc) })
	if _, err := harness.RunManager(ctx, env.ControllerManagerConfig(), func(mgr ctrl.Manager) error {
		s, err := scheduler.New(scheduler.Options{Quota: &enforcement.Admitter{Client: mgr.GetClient()}})
		if err != nil {
			return err
		}
		return s.SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}
	scheduled := func(name string) (*workv1alpha2.ResourceBinding, *metav1.Condition, error) {
		rb := &workv1alpha2.ResourceBinding{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name + "-deployment"}, rb); err != nil {
			return nil, nil, err
		}
		return rb, meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled), nil
	}
	usedCPU := func(ctx context.Context) (resource.Quantity, error) {
		got := &policyv1alpha1.FederatedResourceQuota{}
		err := c.Get(ctx, client.ObjectKeyFromObject(frq), got)
		return *got.Status.OverallUsed.Cpu(), err
	}

	if err := c.Create(ctx, duplicated("full", 4)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "full (4 CPU of 4) is scheduled", func(context.Context) (bool, error) {
		_, cond, err := scheduled("full")
		if err != nil || cond == nil {
			return false, err
		}
		if cond.Status == metav1.ConditionFalse {
			t.Fatalf("full was refused: %s: %s", cond.Reason, cond.Message)
		}
		return cond.Status == metav1.ConditionTrue, nil
	})
	harness.Consistently(t, "the placement is charged once", 2*time.Second, func(ctx context.Context) error {
		used, err := usedCPU(ctx)
		if err == nil && used.Cmp(resource.MustParse("4")) != 0 {
			return &quotaError{corev1.ResourceList{corev1.ResourceCPU: used}}
		}
		return err
	})

	if err := c.Create(ctx, duplicated("more", 1)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "more (1 CPU beyond) is refused by the webhook with QuotaExceeded", func(context.Context) (bool, error) {
		rb, cond, err := scheduled("more")
		if err != nil || cond == nil {
			return false, err
		}
		if len(rb.Spec.Clusters) != 0 {
			t.Fatalf("more was placed on %v beyond the quota", rb.Spec.Clusters)
		}
		return cond.Status == metav1.ConditionFalse && cond.Reason == usage.Reason &&
			strings.Contains(cond.Message, "FederatedResourceQuota(default/team-quota) exceeded for resource cpu: requested sum 5, limit 4."), nil
	})
}
