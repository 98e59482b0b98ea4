package localup

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager"
	"github.com/propel-mc/propel/internal/cli/localenv"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// TestFailoverStagesFollowAnEviction walks the scene's stages through the
// views a real failover produces, in order: each stage stays pending on the
// view before its event and reports on the view after it.
func TestFailoverStagesFollowAnEviction(t *testing.T) {
	task := workv1alpha2.GracefulEvictionTask{FromCluster: "member3", Producer: "TaintManager", Reason: "TaintUntolerated", PurgeMode: policyv1alpha1.PurgeModeGracefully}
	running := failoverView{ClusterReady: true, Assigned: map[string]int32{"member2": 2, "member3": 2}, SurvivorReady: 2, TemplateReady: 4}
	notReady := running
	notReady.ClusterReady = false
	tainted := notReady
	tainted.NoExecute = true
	evicted := tainted
	evicted.Assigned = map[string]int32{"member2": 4}
	evicted.Tasks = []workv1alpha2.GracefulEvictionTask{task}
	moved := evicted
	moved.SurvivorReady, moved.TemplateReady = 4, 4
	settled := moved
	settled.Tasks = nil

	views := []failoverView{running, notReady, tainted, evicted, moved, settled}
	for i, s := range afterStopStages {
		if got := s.done(views[i]); got != "" {
			t.Errorf("stage %q done too early on view %d: %q", s.waiting, i, got)
		}
		if got := s.done(views[i+1]); got == "" {
			t.Errorf("stage %q not done on view %d", s.waiting, i+1)
		}
	}
	if got := afterStopStages[2].done(evicted); !strings.Contains(got, "producer TaintManager, reason TaintUntolerated, purgeMode Gracefully") {
		t.Errorf("eviction message = %q, want the task's producer, reason and purge mode", got)
	}
	// The survivor Ready but the template not yet counting it: not done.
	halfway := moved
	halfway.TemplateReady = 2
	if got := afterStopStages[3].done(halfway); got != "" {
		t.Errorf("done before the template status counts the moved replicas: %q", got)
	}

	back := settled
	back.ClusterReady, back.NoExecute = true, false
	gone := back
	gone.StoppedCopyGone = true
	startViews := []failoverView{settled, back, gone}
	for i, s := range afterStartStages {
		if got := s.done(startViews[i]); got != "" {
			t.Errorf("stage %q done too early on view %d: %q", s.waiting, i, got)
		}
		if got := s.done(startViews[i+1]); got == "" {
			t.Errorf("stage %q not done on view %d", s.waiting, i+1)
		}
	}
	// Copy gone but the binding back on member3 is not the scene's end.
	rescheduled := gone
	rescheduled.Assigned = map[string]int32{"member2": 2, "member3": 2}
	if got := afterStartStages[1].done(rescheduled); got != "" {
		t.Errorf("done although the binding is back on member3: %q", got)
	}
}

// TestFailoverFlagsParse: the flags local-up passes are the controller
// manager's own and turn failover on with timings of seconds.
func TestFailoverFlagsParse(t *testing.T) {
	o := controllermanager.NewOptions()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(FailoverFlags); err != nil {
		t.Fatal(err)
	}
	if !o.FeatureGates.Enabled(commandline.Failover) || !o.EnableTaintManager || !o.EnableNoExecuteTaintEviction {
		t.Errorf("failover not enabled: gate %v, taint manager %v, eviction %v", o.FeatureGates.Enabled(commandline.Failover), o.EnableTaintManager, o.EnableNoExecuteTaintEviction)
	}
	for name, d := range map[string]time.Duration{"status update frequency": o.ClusterStatusUpdateFrequency, "failure threshold": o.ClusterFailureThreshold, "success threshold": o.ClusterSuccessThreshold} {
		if d <= 0 || d > 10*time.Second {
			t.Errorf("%s = %v, want a few seconds", name, d)
		}
	}
}

// TestFailoverSamples: the samples decode into the typed API with the
// fields the scene relies on.
func TestFailoverSamples(t *testing.T) {
	ctp := &policyv1alpha1.ClusterTaintPolicy{}
	decodeSample(t, clusterTaintPolicySample, ctp)
	if len(ctp.Spec.Taints) != 1 || ctp.Spec.Taints[0].Effect != corev1.TaintEffectNoExecute || ctp.Spec.Taints[0].Key != "cluster.karmada.io/not-ready" {
		t.Errorf("taints = %+v", ctp.Spec.Taints)
	}
	add := ctp.Spec.AddOnConditions
	if len(add) != 1 || add[0].ConditionType != "Ready" || add[0].Operator != "NotIn" || len(add[0].StatusValues) != 1 || add[0].StatusValues[0] != metav1.ConditionTrue {
		t.Errorf("addOnConditions = %+v", add)
	}
	pp := &policyv1alpha1.PropagationPolicy{}
	decodeSample(t, "failover/propagationpolicy.yaml", pp)
	if f := pp.Spec.Failover; f == nil || f.Cluster == nil || f.Cluster.PurgeMode != policyv1alpha1.PurgeModeGracefully {
		t.Errorf("failover = %+v, want cluster failover with purgeMode Gracefully", f)
	}
	if got := pp.Spec.ResourceSelectors[0].Name; got != failoverWorkload {
		t.Errorf("selects %q, want %q", got, failoverWorkload)
	}
}

func decodeSample(t *testing.T, file string, into any) {
	t.Helper()
	obj, err := sampleObject(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, into, true); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestControlSocketErrors: unknown members and actions come back as clear
// errors through the socket, and a missing socket names its path.
func TestControlSocketErrors(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if err := memberAPIServer(ctx, dir, "member1", "stop"); err == nil || !strings.Contains(err.Error(), "no local-up control socket") {
		t.Errorf("without local-up: %v", err)
	}
	stop, err := serveControl(ctx, dir, &localenv.Environment{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := memberAPIServer(ctx, dir, "member9", "stop"); err == nil || !strings.Contains(err.Error(), `no member "member9"`) {
		t.Errorf("unknown member: %v", err)
	}
}
