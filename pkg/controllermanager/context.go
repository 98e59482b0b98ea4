package controllermanager

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/pkg/detector"

	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/resourceinterpreter"
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
}
