package binding

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/metrics"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// directPurgeRequeue is how long a binding waits for the Works of directly
// purged clusters to disappear.
const directPurgeRequeue = 5 * time.Second

// errNoPermanentID: the binding has not been given its permanent id yet
// (by the detector or the webhook); Works cannot be labelled without it.
var errNoPermanentID = errors.New("binding has no permanent id label yet")

// reconciler reconciles one binding kind.
type reconciler struct {
	Deps
	kind *bindingKind
	// writers bounds the Works of one binding written at a time.
	writers int
	// injectPreservedLabels is the StatefulFailoverInjection gate.
	injectPreservedLabels bool
}

// Reconcile brings the Works of one binding in line with it.
func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.kind.newObject()
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	b := r.kind.wrap(obj)
	if !obj.GetDeletionTimestamp().IsZero() {
		return ctrl.Result{}, boundedtext.Error(r.finalize(ctx, b))
	}
	// The error goes to controller-runtime's log: bound a member's or an
	// interpreter's text in it.
	res, err := r.sync(ctx, b)
	return res, boundedtext.Error(err)
}

// sync runs the phases of a live binding: remove orphan Works, wait for
// direct purges, fetch the template, write the Works.
func (r *reconciler) sync(ctx context.Context, b *binding) (ctrl.Result, error) {
	if b.id() == "" {
		return ctrl.Result{}, fmt.Errorf("%s: %w", b, errNoPermanentID)
	}
	works, err := r.cachedWorks(ctx, b)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.removeOrphans(ctx, b, works); err != nil {
		return ctrl.Result{}, err
	}
	if waitingForDirectPurge(b, works) {
		log.FromContext(ctx).V(1).Info("waiting for the Works of directly purged clusters to be deleted")
		return ctrl.Result{RequeueAfter: directPurgeRequeue}, nil
	}
	targets := b.targets()
	if len(targets) == 0 {
		return ctrl.Result{}, nil
	}
	tmpl, err := r.template(ctx, b)
	if apierrors.IsNotFound(err) {
		// The template is gone and the binding will be garbage collected.
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.ensureFinalizer(ctx, b); err != nil {
		return ctrl.Result{}, err
	}
	start := time.Now()
	err = r.syncWorks(ctx, b, tmpl, targets, works)
	metrics.BindingWorksSynced(start, err)
	return ctrl.Result{}, err
}

// template reads the binding's resource template.
func (r *reconciler) template(ctx context.Context, b *binding) (*unstructured.Unstructured, error) {
	ref := b.spec.Resource
	tmpl, err := r.Templates.Get(ctx, schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind), ref.Namespace, ref.Name)
	if err != nil {
		return nil, fmt.Errorf("%s: get template %s %s: %w", b, ref.Kind, objectKey(ref.Namespace, ref.Name), err)
	}
	return tmpl, nil
}

// syncWorks writes every target's Work and records the outcome as events
// on the binding and the template. A success is recorded only when
// something was written, so that an unchanged binding costs no write.
func (r *reconciler) syncWorks(ctx context.Context, b *binding, tmpl *unstructured.Unstructured, targets []workv1alpha2.TargetCluster, works []*workv1alpha1.Work) error {
	written, err := r.ensureWorks(ctx, b, tmpl, targets, works)
	if err != nil {
		msg := boundedtext.String(err.Error())
		r.Recorder.Event(b.obj, corev1.EventTypeWarning, EventReasonSyncWorkFailed, msg)
		r.Recorder.Event(tmpl, corev1.EventTypeWarning, EventReasonSyncWorkFailed, msg)
		return err
	}
	if written > 0 {
		msg := fmt.Sprintf("Sync work of %s successful.", b.eventName())
		r.Recorder.Event(b.obj, corev1.EventTypeNormal, EventReasonSyncWorkSucceed, msg)
		r.Recorder.Event(tmpl, corev1.EventTypeNormal, EventReasonSyncWorkSucceed, msg)
	}
	return nil
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
