package customization

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/pkg/apis"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestConfigManagerAgainstAPIServer feeds the layer from a real
// kube-apiserver through a controller-runtime cache: creates, updates and
// deletes of a ResourceInterpreterCustomization change the next call, and a
// script that does not compile yields an Event and an error naming the line.
func TestConfigManagerAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	broadcaster := record.NewBroadcaster()
	// Events are written as Propel writes them, with its role.
	propel := kubernetes.NewForConfigOrDie(env.ControllerManagerConfig())
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: propel.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(apis.Scheme, corev1.EventSource{Component: "propel-test"})

	c, err := cache.New(env.ControllerManagerConfig(), cache.Options{Scheme: apis.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	i := New(Options{Recorder: recorder})
	// Cold start: not ready, never "no hook".
	if _, err := i.HookEnabled(workload, opReplica); !errors.Is(err, layer.ErrNotReady) {
		t.Fatalf("HookEnabled before sync: %v, want ErrNotReady", err)
	}
	if err := i.Watch(ctx, c); err != nil {
		t.Fatal(err)
	}
	go func() {
		if err := c.Start(ctx); err != nil {
			t.Errorf("cache: %v", err)
		}
	}()
	harness.Eventually(t, "layer synced", func(context.Context) (bool, error) {
		_, err := i.HookEnabled(workload, opReplica)
		return err == nil, nil
	})

	obj := ric("e2e-ric", replicas("function GetReplicas(o)\n  return 1\nend"))
	obj.ResourceVersion = ""
	if err := env.Client.Create(ctx, &obj); err != nil {
		t.Fatal(err)
	}
	waitReplicas(t, ctx, i, 1)

	setScript(t, ctx, env.Client, "function GetReplicas(o)\n  return o.spec.replicas + 5\nend")
	waitReplicas(t, ctx, i, 7)

	setScript(t, ctx, env.Client, "function GetReplicas(o)\n  local x = 1\n  return x +\nend")
	harness.Eventually(t, "compile error on the next call", func(context.Context) (bool, error) {
		_, _, err := i.GetReplicas(ctx, newWorkload(t))
		return err != nil && strings.Contains(err.Error(), `customization "e2e-ric" InterpretReplica: e2e-ric:4:`), nil
	})
	harness.Eventually(t, "Warning Event on the customization", func(context.Context) (bool, error) {
		events, err := env.Kube.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.name=e2e-ric,reason=" + ReasonInvalidScript,
		})
		if err != nil {
			return false, err
		}
		for _, ev := range events.Items {
			if ev.Type == corev1.EventTypeWarning && strings.Contains(ev.Message, "InterpreterOperation(InterpretReplica) Lua script error: e2e-ric:4:") {
				return true, nil
			}
		}
		return false, nil
	})

	if err := env.Client.Delete(ctx, &configv1alpha1.ResourceInterpreterCustomization{ObjectMeta: metav1.ObjectMeta{Name: "e2e-ric"}}); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "hook disabled after delete", func(context.Context) (bool, error) {
		ok, err := i.HookEnabled(workload, opReplica)
		return !ok && err == nil, nil
	})
}

func setScript(t *testing.T, ctx context.Context, c client.Client, script string) {
	t.Helper()
	var obj configv1alpha1.ResourceInterpreterCustomization
	if err := c.Get(ctx, client.ObjectKey{Name: "e2e-ric"}, &obj); err != nil {
		t.Fatal(err)
	}
	obj.Spec.Customizations.ReplicaResource.LuaScript = script
	if err := c.Update(ctx, &obj); err != nil {
		t.Fatal(err)
	}
}

func waitReplicas(t *testing.T, ctx context.Context, i *Interpreter, want int32) {
	t.Helper()
	harness.Eventually(t, "GetReplicas", func(context.Context) (bool, error) {
		n, _, err := i.GetReplicas(ctx, newWorkload(t))
		return err == nil && n == want, nil
	})
}
