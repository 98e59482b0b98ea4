// Package status assembles the status path from member clusters back to
// resource templates. Each part lives in its own package:
//
//   - workstatus: the one writer of Work .status: the execution
//     controller's outcomes → Applied and Dispatching, member objects →
//     status.manifestStatuses (reflected status and health), written only
//     when changed;
//   - bindingstatus: Works of a binding → binding status.aggregatedStatus
//     and FullyApplied (ResourceBindings and ClusterResourceBindings);
//   - templatestatus: aggregated items → the template's .status through
//     the interpreter's AggregateStatus;
//   - manifeststatus: reflection and semantic comparison of manifest
//     statuses (work status and binding status).
//
// SetupWithManager wires all of them into a manager.
package status

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/pipeline/status/bindingstatus"
	"github.com/propel-mc/propel/internal/pipeline/status/manifeststatus"
	"github.com/propel-mc/propel/internal/pipeline/status/templatestatus"
	"github.com/propel-mc/propel/internal/pipeline/status/workstatus"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Interpreter is what the status path needs of the resource interpreter.
type Interpreter interface {
	manifeststatus.Interpreter
	AggregateStatus(ctx context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error)
}

var _ templatestatus.Aggregator = Interpreter(nil)

// Templates reads and writes resource templates; *templatestatus.Dynamic
// is one.
type Templates interface {
	templatestatus.TemplateReader
	templatestatus.StatusWriter
}

// Deps are the collaborators of the status controllers.
type Deps struct {
	Manager     ctrl.Manager
	Clients     membercluster.ClientSource
	Informers   *membercluster.Informers
	Interpreter Interpreter
	// Templates writes template statuses and reads templates after a
	// conflict.
	Templates Templates
	// CachedTemplates (optional) is read first, e.g. the detector's
	// informers, so an aggregation that changes nothing costs no request.
	CachedTemplates templatestatus.TemplateReader
}

// Options tune the three controllers.
type Options struct {
	Work                   workstatus.Options
	ResourceBinding        bindingstatus.Options
	ClusterResourceBinding bindingstatus.Options
}

// SetupWithManager adds the work-status and both binding status
// controllers to deps.Manager and returns the work-status controller, the
// Work status owner the execution controller hands its outcomes to.
func SetupWithManager(deps Deps, opts Options) (*workstatus.Reconciler, error) {
	ws := NewWorkStatus(deps, opts.Work)
	if err := ws.SetupWithManager(deps.Manager); err != nil {
		return nil, fmt.Errorf("setup %s: %w", names.WorkStatusControllerName, err)
	}
	return ws, SetupBindingStatus(deps, opts)
}

// NewWorkStatus returns the work-status controller (Karmada's
// "workStatus"), the one writer of Work .status; the caller sets it up
// with the manager.
func NewWorkStatus(deps Deps, opts workstatus.Options) *workstatus.Reconciler {
	mgr := deps.Manager
	return workstatus.New(workstatus.Deps{
		Client: mgr.GetClient(), Clients: deps.Clients, Informers: deps.Informers,
		Interpreter: deps.Interpreter, Recorder: recorder.For(mgr, names.WorkStatusControllerName),
	}, opts)
}

// SetupBindingStatus adds both binding status controllers, which also write
// the aggregated status into templates (Karmada's "bindingStatus").
func SetupBindingStatus(deps Deps, opts Options) error {
	mgr := deps.Manager
	syncer := &templatestatus.Syncer{Reader: deps.Templates, Writer: deps.Templates, Aggregator: deps.Interpreter}
	if deps.CachedTemplates != nil {
		syncer.Reader, syncer.LiveReader = deps.CachedTemplates, deps.Templates
	}
	rb := bindingstatus.NewResourceBinding(bindingstatus.Deps{
		Client: mgr.GetClient(), Templates: syncer, Recorder: recorder.For(mgr, names.ResourceBindingStatusControllerName),
	}, opts.ResourceBinding)
	if err := rb.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setup %s: %w", names.ResourceBindingStatusControllerName, err)
	}
	crb := bindingstatus.NewClusterResourceBinding(bindingstatus.Deps{
		Client: mgr.GetClient(), Templates: syncer, Recorder: recorder.For(mgr, names.ClusterResourceBindingStatusControllerName),
	}, opts.ClusterResourceBinding)
	if err := crb.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setup %s: %w", names.ClusterResourceBindingStatusControllerName, err)
	}
	return nil
}
