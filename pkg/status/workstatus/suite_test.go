package workstatus_test

import (
	"context"
	"os"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/index"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/resourceinterpreter"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/native"
	"github.com/propel-mc/propel/pkg/status/workstatus"
	"github.com/propel-mc/propel/test/harness"
)

// The suite runs the work-status controller alone against one control
// plane with the default members. The tests play the execution controller:
// they create member objects themselves and hand the controller their
// outcomes (Record). The work-status controller reflects only Works whose
// cluster is a Ready Push cluster, and nothing in this suite runs the
// cluster status controller, so the setup marks every member Ready itself
// (without it no Work ever gets a manifest status).
var (
	env *harness.Env
	// writes counts the controller's writes to the control plane.
	writes harness.WriteCounter
	ws     *workstatus.Reconciler
)

func TestMain(m *testing.M) {
	// PROPEL_TEST_LOG=1 shows the controller's logs.
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	harness.Main(m, harness.Options{}, &env, prepareClusters, startControllers)
}

// prepareClusters creates the execution spaces and marks every member
// Ready, as the cluster controllers would.
func prepareClusters(ctx context.Context, e *harness.Env) error {
	clusters := &clusterv1alpha1.ClusterList{}
	if err := e.Client.List(ctx, clusters); err != nil {
		return err
	}
	for i := range clusters.Items {
		c := &clusters.Items[i]
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.ExecutionSpace(c.Name)}}
		if err := e.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady,
			Status: metav1.ConditionTrue, Reason: clusterv1alpha1.ClusterReasonReady, Message: clusterv1alpha1.ClusterMessageReady})
		if err := e.Client.Status().Update(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func startControllers(ctx context.Context, e *harness.Env) error {
	_, err := harness.RunManager(ctx, writes.Count(e.ControlPlane.Config, "karmada"), func(mgr ctrl.Manager) error {
		if err := index.AddDefaultIndexes(context.Background(), mgr); err != nil {
			return err
		}
		clients := membercluster.New(mgr.GetClient(), membercluster.Options{})
		informers := membercluster.NewInformers(membercluster.InformerOptions{})
		if err := informers.SetupWithManager(mgr, clients, true); err != nil {
			return err
		}
		ws = workstatus.New(workstatus.Deps{
			Client: mgr.GetClient(), Clients: clients, Informers: informers,
			Interpreter: resourceinterpreter.New(native.New()),
			//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
			Recorder: mgr.GetEventRecorderFor(names.WorkStatusControllerName),
		}, workstatus.Options{MemberEventDelay: -1, SkipNameValidation: true})
		return ws.SetupWithManager(mgr)
	})
	return err
}
