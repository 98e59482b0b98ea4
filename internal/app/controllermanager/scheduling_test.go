package controllermanager

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/schedulermanager"
	"github.com/propel-mc/propel/pkg/apis"
)

// TestInProcessSchedulerWiredAsPropelScheduler: the same command line
// gives the controller manager's in-process scheduler and propel-scheduler
// the same scheduler options (name, estimator, gates, quota check).
func TestInProcessSchedulerWiredAsPropelScheduler(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).Build()
	for _, args := range [][]string{
		nil,
		{"--scheduler-name=other", "--enable-scheduler-estimator", "--scheduler-estimator-timeout=5s",
			"--feature-gates=FederatedQuotaEnforcement=true,PriorityBasedScheduling=true,CustomizedClusterResourceModeling=false"},
		{"--feature-gates=AllAlpha=true,AllBeta=true"},
	} {
		cm, err := parseFlags(args...)
		if err != nil {
			t.Fatal(err)
		}
		sm := schedulermanager.NewOptions()
		fs := pflag.NewFlagSet("propel-scheduler", pflag.ContinueOnError)
		fs.SetOutput(&strings.Builder{})
		sm.AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		inProcess := schedulermanager.SchedulerOptions(cm.Scheduling, cm.FeatureGates, c, nil)
		own := schedulermanager.SchedulerOptions(sm.Scheduling, sm.FeatureGates, c, nil)
		if !reflect.DeepEqual(inProcess, own) {
			t.Errorf("%v: in-process scheduler %+v, propel-scheduler %+v", args, inProcess, own)
		}
		if !reflect.DeepEqual(cm.Estimator, sm.Estimator) {
			t.Errorf("%v: estimator options differ: %+v vs %+v", args, cm.Estimator, sm.Estimator)
		}
		if gated := sm.FeatureGates.Enabled(commandline.FederatedQuotaEnforcement); gated != (own.Quota != nil) {
			t.Errorf("%v: quota check %v, want %v", args, own.Quota != nil, gated)
		}
		if gated := sm.FeatureGates.Enabled(commandline.WorkloadAffinity); gated != own.WorkloadAffinity {
			t.Errorf("%v: workload affinity filters %v, want %v", args, own.WorkloadAffinity, gated)
		}
		if gated := sm.FeatureGates.Enabled(commandline.SchedulingOvercommitProtection); gated != own.OvercommitProtection {
			t.Errorf("%v: overcommit protection %v, want %v", args, own.OvercommitProtection, gated)
		}
	}
}
