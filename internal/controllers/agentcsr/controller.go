package agentcsr

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
)

// RBAC: CSRs are read and approved (the approval subresource, and the
// signer's approve verb the API server checks for it); the requesting
// user's permission is asked with a SubjectAccessReview.
// +kubebuilder:rbac:groups=certificates.k8s.io,resources=certificatesigningrequests,verbs=get;list;watch
// +kubebuilder:rbac:groups=certificates.k8s.io,resources=certificatesigningrequests/approval,verbs=update
// +kubebuilder:rbac:groups=certificates.k8s.io,resources=signers,resourceNames=kubernetes.io/kube-apiserver-client,verbs=approve
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads CSRs from the manager's cache, approves them and
	// creates SubjectAccessReviews.
	Client client.Client
}

// Options tune the controller; zero values take Karmada's defaults.
type Options struct {
	// RateLimiter paces retries (default: controller-runtime's).
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]
	// SkipNameValidation lets tests run several managers in one process.
	SkipNameValidation bool
}

// Reconciler is the agent CSR approving controller.
type Reconciler struct {
	client client.Client
	opts   Options
}

// New returns the controller; SetupWithManager wires it.
func New(deps Deps, opts Options) *Reconciler {
	return &Reconciler{client: deps.Client, opts: opts}
}

// SetupWithManager registers the controller for the CSRs of the
// kube-apiserver client signer, the only one agents use.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.AgentCSRApprovingControllerName).
		For(&certificatesv1.CertificateSigningRequest{}, builder.WithPredicates(clientSignerCSRs())).
		WithOptions(controller.Options{RateLimiter: r.opts.RateLimiter, SkipNameValidation: &r.opts.SkipNameValidation}).
		Complete(r)
}

// clientSignerCSRs passes creations and updates of CSRs for the
// kube-apiserver client signer.
func clientSignerCSRs() predicate.Funcs {
	clientSigner := func(obj client.Object) bool {
		csr, ok := obj.(*certificatesv1.CertificateSigningRequest)
		return ok && csr.Spec.SignerName == certificatesv1.KubeAPIServerClientSignerName
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return clientSigner(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return clientSigner(e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
