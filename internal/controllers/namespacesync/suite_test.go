package namespacesync_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/controllers/cluster/lifecycle"
	"github.com/propel-mc/propel/internal/controllers/cluster/status"
	"github.com/propel-mc/propel/internal/controllers/namespacesync"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/pipeline/execution"
	"github.com/propel-mc/propel/internal/pipeline/status/workstatus"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/test/harness"
)

// The suite runs the namespace sync controller against one control plane
// with the default members, beside what it relies on in production: the
// cluster controllers (execution namespaces, Ready) and the execution
// controller that applies its Works to the members.
var env *harness.Env

func TestMain(m *testing.M) {
	// PROPEL_TEST_LOG=1 shows the controllers' logs.
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	harness.Main(m, harness.Options{}, &env, startControllers)
}

func startControllers(ctx context.Context, e *harness.Env) error {
	_, err := harness.RunManager(ctx, e.ControllerManagerConfig(), func(mgr ctrl.Manager) error {
		if err := index.AddDefaultIndexes(context.Background(), mgr); err != nil {
			return err
		}
		if err := lifecycle.New(lifecycle.Options{}).SetupWithManager(mgr); err != nil {
			return err
		}
		clients := membercluster.New(mgr.GetClient(), membercluster.Options{})
		informers := membercluster.NewInformers(membercluster.InformerOptions{})
		if err := informers.SetupWithManager(mgr, clients, true); err != nil {
			return err
		}
		if err := status.New(clients, informers, status.Options{UpdateFrequency: time.Second, SuccessThreshold: 2 * time.Second, FailureThreshold: 2 * time.Second}).SetupWithManager(mgr); err != nil {
			return err
		}
		ns, err := namespacesync.New(namespacesync.Options{})
		if err != nil {
			return err
		}
		if err := ns.SetupWithManager(mgr); err != nil {
			return err
		}
		// The execution controller hands its outcomes to the Work status
		// owner; these tests read no Work status.
		ws := workstatus.New(workstatus.Deps{Client: mgr.GetClient(), Clients: clients, Informers: informers},
			workstatus.Options{OutcomesOnly: true, SkipNameValidation: true})
		if err := ws.SetupWithManager(mgr); err != nil {
			return err
		}
		return execution.New(execution.Deps{
			Client: mgr.GetClient(), Clients: clients, Informers: informers, Status: ws,
			//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
			Interpreter: resourceinterpreter.New(native.New()), Recorder: mgr.GetEventRecorderFor("execution-controller"),
		}, execution.Options{SkipNameValidation: true}).SetupWithManager(mgr)
	})
	return err
}
