package agentcsr

import (
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/liveobject"
)

// Reconcile decides one CSR in phases: skip what is decided already, parse
// the request, recognize the kind of agent CSR, ask whether the requesting
// user may file it, approve.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	csr := &certificatesv1.CertificateSigningRequest{}
	if live, err := liveobject.Get(ctx, r.client, req.NamespacedName, csr); !live || decided(csr) {
		return reconcile.Result{}, err
	}
	logger := log.FromContext(ctx).WithValues("csr", klog.KObj(csr))
	x509req, err := parseRequest(csr.Name, csr.Spec.Request)
	if err != nil {
		// The request never changes: retrying cannot make it parse.
		logger.Error(err, "not approving a certificate signing request that does not parse")
		return reconcile.Result{}, nil
	}
	var tried []string
	for _, k := range kinds {
		if !k.recognize(csr, x509req) {
			continue
		}
		tried = append(tried, k.permission.Subresource)
		allowed, err := r.allowed(ctx, csr, k.permission)
		if err != nil {
			return reconcile.Result{}, err
		}
		if allowed {
			return reconcile.Result{}, r.approve(ctx, csr, k.message)
		}
	}
	if len(tried) > 0 {
		logger.Info("not approving an agent certificate signing request: the requesting user may not file it",
			"user", csr.Spec.Username, "subresources", tried)
	}
	return reconcile.Result{}, nil
}

// approve writes the Approved condition through the approval subresource.
func (r *Reconciler) approve(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, message string) error {
	csr = csr.DeepCopy()
	approve(csr, message)
	if err := r.client.SubResource("approval").Update(ctx, csr); err != nil {
		return fmt.Errorf("certificatesigningrequest %s: approve: %w", csr.Name, err)
	}
	log.FromContext(ctx).V(2).Info("approved agent certificate signing request", "csr", klog.KObj(csr))
	return nil
}
