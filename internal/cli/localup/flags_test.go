package localup

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager"
	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/app/schedulermanager"
	"github.com/propel-mc/propel/internal/scheduling/estimatorserver"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator/accurate"
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

// TestEstimatorFlagsParse: propel-scheduler-estimator accepts local-up's
// flags for a member: its kubeconfig and name, gRPC, health and metrics on
// loopback, and extra flags last (Karmada's e2e gates turn the quota
// estimate on).
func TestEstimatorFlagsParse(t *testing.T) {
	o := estimatorserver.NewOptions()
	fs := pflag.NewFlagSet(estimatorBinary, pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(estimatorFlags("member1", "/state/member1.kubeconfig", 20001, 20002, 20003, []string{"--feature-gates=AllAlpha=true,AllBeta=true"})); err != nil {
		t.Fatal(err)
	}
	if o.Kubeconfig != "/state/member1.kubeconfig" || o.ClusterName != "member1" {
		t.Errorf("kubeconfig %q, cluster %q", o.Kubeconfig, o.ClusterName)
	}
	if o.BindAddress != "127.0.0.1" || o.ServerPort != 20001 || o.HealthProbeBindAddress != "127.0.0.1:20002" || o.MetricsBindAddress != "127.0.0.1:20003" {
		t.Errorf("serving: gRPC %s:%d, health %s, metrics %s", o.BindAddress, o.ServerPort, o.HealthProbeBindAddress, o.MetricsBindAddress)
	}
	if !o.FeatureGates.Enabled(commandline.ResourceQuotaEstimate) || !o.FeatureGates.Enabled(commandline.Failover) {
		t.Errorf("gates: ResourceQuotaEstimate %v, Failover %v; want both on", o.FeatureGates.Enabled(commandline.ResourceQuotaEstimate), o.FeatureGates.Enabled(commandline.Failover))
	}
}

// TestEstimatorServiceResolves: the Service local-up registers for a member
// sends propel-scheduler, with karmada-scheduler's default estimator flags,
// to the port the member's estimator serves on.
func TestEstimatorServiceResolves(t *testing.T) {
	svc := estimatorService("member2", 20001)
	opts := accurate.NewOptions()
	if svc.Namespace != opts.ServiceNamespace || svc.Name != opts.ServicePrefix+"-member2" {
		t.Errorf("Service %s/%s is not where the scheduler looks (%s/%s-member2)", svc.Namespace, svc.Name, opts.ServiceNamespace, opts.ServicePrefix)
	}
	if len(svc.Spec.Ports) != 1 || int(svc.Spec.Ports[0].Port) != opts.Port || svc.Spec.Ports[0].TargetPort.IntValue() != 20001 {
		t.Errorf("ports %+v: want %d mapped to 20001", svc.Spec.Ports, opts.Port)
	}
}
