package workstatus_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/localenv"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/resourceinterpreter"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/native"
	"github.com/propel-mc/propel/pkg/status/workstatus"
	"github.com/propel-mc/propel/test/harness"
)

// The suite runs the work-status controller alone against a control plane
// with one bare member (an API server without controllers, so the tests
// write the member objects' status themselves). The tests play the
// execution controller: they create the member object with the
// annotations pointing back to its Work and mark the Work Applied.
var (
	env *harness.Env
	// writes counts the controller's writes to the control plane.
	writes harness.WriteCounter
)

const member = "member1"

func TestMain(m *testing.M) {
	// PROPEL_TEST_LOG=1 shows the controller's logs.
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	harness.Main(m, harness.Options{Members: []localenv.MemberOptions{{Name: member}}, NoControlPlaneControllers: true}, &env, prepare, startController)
}

// prepare does what the cluster controllers would: the execution
// namespace and a Ready cluster.
func prepare(ctx context.Context, e *harness.Env) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.ExecutionSpace(member)}}
	if err := e.Client.Create(ctx, ns); err != nil {
		return fmt.Errorf("create execution namespace: %w", err)
	}
	c := &clusterv1alpha1.Cluster{}
	if err := e.Client.Get(ctx, ctrlKey(member), c); err != nil {
		return err
	}
	c.Status.Conditions = []metav1.Condition{{
		Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue,
		Reason: "ClusterReady", Message: "cluster is healthy and ready to accept workloads", LastTransitionTime: metav1.Now(),
	}}
	return e.Client.Status().Update(ctx, c)
}

func startController(ctx context.Context, e *harness.Env) error {
	_, err := harness.RunManager(ctx, writes.Count(e.ControlPlane.Config, "karmada"), func(mgr ctrl.Manager) error {
		clients := membercluster.New(mgr.GetClient(), membercluster.Options{})
		informers := membercluster.NewInformers(membercluster.InformerOptions{})
		if err := informers.SetupWithManager(mgr, clients, true); err != nil {
			return err
		}
		return workstatus.New(workstatus.Deps{
			Client: mgr.GetClient(), Clients: clients, Informers: informers,
			Interpreter: resourceinterpreter.New(native.New()),
			Recorder:    mgr.GetEventRecorderFor(names.WorkStatusControllerName),
		}, workstatus.Options{
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](20*time.Millisecond, 500*time.Millisecond),
			// Every member change reaches the Work at once, so that
			// the tests see each one reconciled.
			MemberEventDelay:   -1,
			SkipNameValidation: true,
		}).SetupWithManager(mgr)
	})
	return err
}
