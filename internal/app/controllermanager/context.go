package controllermanager

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/pipeline/detector"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/pipeline/status"
	"github.com/propel-mc/propel/internal/pipeline/status/workstatus"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
)

// Context is what every controller's setup receives: the manager and the
// components controllers share (one interpreter, one member-client cache).
type Context struct {
	Manager       ctrl.Manager
	Options       *Options
	Interpreter   *resourceinterpreter.Interpreter
	MemberClients *membercluster.Clients
	// Templates reads resource templates through the detector's informers;
	// set once the detector is set up (it always is, first).
	Templates detector.Templates

	memberInformers *membercluster.Informers
	workStatus      *workstatus.Reconciler
	// reloaders are the interpreter layers whose configuration can change.
	reloaders []interface{ OnLoad(func()) }
}

// MemberInformers returns the one registry of member informers (the
// member-object sets execution and work status share, and the Node and Pod
// informers of cluster status), registering it with the manager on first
// use.
func (c *Context) MemberInformers() (*membercluster.Informers, error) {
	if c.memberInformers != nil {
		return c.memberInformers, nil
	}
	inf := membercluster.NewInformers(membercluster.InformerOptions{})
	if err := inf.SetupWithManager(c.Manager, c.MemberClients, false); err != nil {
		return nil, err
	}
	c.memberInformers = inf
	return inf, nil
}

// WorkStatus returns the work-status controller, the one writer of Work
// .status, registering it with the manager on first use: execution hands
// it its outcomes, so it runs whenever execution or workStatus does. With
// workStatus disabled it records only the outcomes (Applied, Dispatching),
// as Karmada's execution controller alone would.
func (c *Context) WorkStatus() (*workstatus.Reconciler, error) {
	if c.workStatus != nil {
		return c.workStatus, nil
	}
	deps, err := statusDeps(c)
	if err != nil {
		return nil, err
	}
	ws := status.NewWorkStatus(deps, workstatus.Options{
		OutcomesOnly: !NewControllerRegistry().Enabled("workStatus", c.Options.Controllers),
	})
	if err := ws.SetupWithManager(c.Manager); err != nil {
		return nil, fmt.Errorf("setup %s: %w", names.WorkStatusControllerName, err)
	}
	c.workStatus = ws
	return ws, nil
}
