package agentcsr

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
)

// allowed asks karmada-apiserver whether the user who filed csr (with
// their groups and extra attributes, as the CSR records them) may do
// permission.
func (r *Reconciler) allowed(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, permission authorizationv1.ResourceAttributes) (bool, error) {
	extra := make(map[string]authorizationv1.ExtraValue, len(csr.Spec.Extra))
	for k, v := range csr.Spec.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: csr.Spec.Username, UID: csr.Spec.UID, Groups: csr.Spec.Groups, Extra: extra,
		ResourceAttributes: &permission,
	}}
	if err := r.client.Create(ctx, review); err != nil {
		return false, fmt.Errorf("certificatesigningrequest %s: review %s/%s for user %q: %w",
			csr.Name, permission.Resource, permission.Subresource, csr.Spec.Username, err)
	}
	return review.Status.Allowed, nil
}
