package workstatus_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/pipeline/status/workstatus"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
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
	// works is the controller's view of Works: the manager's cache, which
	// a test can hold back.
	works = &laggingWorks{held: map[client.ObjectKey]*workv1alpha1.Work{}, reads: map[client.ObjectKey]int{}}
)

// resyncPeriod is the suite's Work status resync, short enough for a test
// to see several.
const resyncPeriod = 2 * time.Second

// laggingWorks plays the manager's cache falling behind the API server:
// while a Work is held, the controller reads the copy taken when it was
// held, whatever has been written since (as an informer that has not
// delivered the controller's own write yet, which takes seconds on a
// loaded machine). It also counts the controller's reads of each Work.
type laggingWorks struct {
	client.Client
	mu    sync.Mutex
	held  map[client.ObjectKey]*workv1alpha1.Work
	reads map[client.ObjectKey]int
}

func (l *laggingWorks) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	w, isWork := obj.(*workv1alpha1.Work)
	if !isWork {
		return l.Client.Get(ctx, key, obj, opts...)
	}
	l.mu.Lock()
	l.reads[key]++
	held := l.held[key]
	l.mu.Unlock()
	if held != nil {
		held.DeepCopyInto(w)
		return nil
	}
	return l.Client.Get(ctx, key, obj, opts...)
}

// hold makes the controller read w as it is now until release.
func (l *laggingWorks) hold(w *workv1alpha1.Work) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[client.ObjectKeyFromObject(w)] = w.DeepCopy()
}

func (l *laggingWorks) release(w *workv1alpha1.Work) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, client.ObjectKeyFromObject(w))
}

// readsOf is how often the controller has read w.
func (l *laggingWorks) readsOf(w *workv1alpha1.Work) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reads[client.ObjectKeyFromObject(w)]
}

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
	_, err := harness.RunManager(ctx, writes.Count(e.ControllerManagerConfig(), "karmada"), func(mgr ctrl.Manager) error {
		if err := index.AddDefaultIndexes(context.Background(), mgr); err != nil {
			return err
		}
		clients := membercluster.New(mgr.GetClient(), membercluster.Options{})
		informers := membercluster.NewInformers(membercluster.InformerOptions{})
		if err := informers.SetupWithManager(mgr, clients, true); err != nil {
			return err
		}
		works.Client = mgr.GetClient()
		ws = workstatus.New(workstatus.Deps{
			Client: works, Clients: clients, Informers: informers,
			Interpreter: resourceinterpreter.New(native.New()),
			//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
			Recorder: mgr.GetEventRecorderFor(names.WorkStatusControllerName),
		}, workstatus.Options{MemberEventDelay: -1, ResyncPeriod: resyncPeriod, SkipNameValidation: true})
		return ws.SetupWithManager(mgr)
	})
	return err
}
