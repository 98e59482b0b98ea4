package localup

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager"
	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/app/schedulermanager"
)

// TestControllerManagerFlagsScheduler: with propel-scheduler running beside
// it, the controller manager runs Karmada's default set without the
// in-process scheduler (two schedulers would share one Lease and one
// leads); without it, the in-process scheduler is named. Extra flags come
// last and win.
func TestControllerManagerFlagsScheduler(t *testing.T) {
	for _, separate := range []bool{true, false} {
		o := controllermanager.NewOptions()
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(controllerManagerFlags(separate, []string{"--feature-gates=AllAlpha=true,AllBeta=true", "--cluster-status-update-frequency=10s"})); err != nil {
			t.Fatal(err)
		}
		if got := controllermanager.NewControllerRegistry().Enabled("scheduler", o.Controllers); got == separate {
			t.Errorf("separate scheduler %v: --controllers=%v enables the in-process scheduler: %v", separate, o.Controllers, got)
		}
		if !controllermanager.NewControllerRegistry().Enabled("binding", o.Controllers) {
			t.Errorf("--controllers=%v leaves Karmada's default controllers off", o.Controllers)
		}
		if o.ClusterStatusUpdateFrequency.String() != "10s" {
			t.Errorf("extra --cluster-status-update-frequency did not win: %v", o.ClusterStatusUpdateFrequency)
		}
		if !o.FeatureGates.Enabled(commandline.Failover) {
			t.Error("local-up's Failover gate lost to the extra --feature-gates")
		}
	}
}

// TestSchedulerFlagsParse: propel-scheduler accepts local-up's flags, reads
// the control plane's kubeconfig, holds karmada-scheduler's Lease in
// karmada-system, serves on the addresses local-up chose, and takes extra
// flags last.
func TestSchedulerFlagsParse(t *testing.T) {
	o := schedulermanager.NewOptions()
	fs := pflag.NewFlagSet("propel-scheduler", pflag.ContinueOnError)
	o.AddFlags(fs)
	serving := managerbase.Serving{MetricsBindAddress: "127.0.0.1:8081", HealthProbeBindAddress: "127.0.0.1:10351", ProfilingBindAddress: "127.0.0.1:6061"}
	if err := fs.Parse(schedulerFlags("/state/karmada.kubeconfig", serving, []string{"--enable-empty-workload-propagation=true"})); err != nil {
		t.Fatal(err)
	}
	if o.Kubeconfig != "/state/karmada.kubeconfig" {
		t.Errorf("kubeconfig = %q", o.Kubeconfig)
	}
	if !o.LeaderElect || o.LeaderElectResourceName != "karmada-scheduler" || o.LeaderElectResourceNamespace != "karmada-system" {
		t.Errorf("lease: elect %v, %s/%s; want karmada-system/karmada-scheduler", o.LeaderElect, o.LeaderElectResourceNamespace, o.LeaderElectResourceName)
	}
	if o.Serving != serving {
		t.Errorf("serving %+v, want %+v", o.Serving, serving)
	}
	if !o.FeatureGates.Enabled(commandline.Failover) || !o.EnableEmptyWorkloadPropagation {
		t.Errorf("gates or extra flags lost: failover %v, empty workload propagation %v", o.FeatureGates.Enabled(commandline.Failover), o.EnableEmptyWorkloadPropagation)
	}
}
