// Package localup runs Propel's playground on one machine: a control plane
// and member clusters on loopback (internal/cli/localenv) with fake nodes of
// different sizes, regions and zones, the members joined as Clusters,
// propel-controller-manager running in-process with cluster failover on
// (FailoverFlags, a ClusterTaintPolicy sample) and propel-scheduler as its
// own process. It can host Karmada's e2e suite: kubeconfigs in Karmada's
// layout, the example interpreter webhook, and Karmada's components that
// Propel does not replace from --karmada-bin-dir. State lives under one
// directory; a second run reuses it (same ports, same data) unless Fresh.
// A unix socket there lets `propelctl demo` stop and start a member's API
// server; Demo applies the seed scenarios, including a failover scene.
package localup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/propel-mc/propel/config/crds"
	karmadaapiserver "github.com/propel-mc/propel/config/deploy/karmada-apiserver"
	"github.com/propel-mc/propel/internal/app/controllermanager"
	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/cli/join"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
)

// Options configure local-up.
type Options struct {
	// Dir holds all state (default ~/.propel/local).
	Dir string
	// Members is the number of member clusters (default 3).
	Members int
	// Fresh wipes Dir first.
	Fresh bool
	// Out receives progress and the final instructions.
	Out io.Writer
	// KarmadaBinDir holds Karmada's components that Propel does not
	// replace (karmadaComponents); each one found there runs beside
	// Propel. Empty runs none.
	KarmadaBinDir string
	// ControllerManagerArgs and SchedulerArgs are appended to the flags
	// local-up gives propel-controller-manager and propel-scheduler (a
	// later flag wins), e.g. Karmada's e2e settings.
	ControllerManagerArgs, SchedulerArgs []string
	// GrantTemplates are API groups ("*" for all) whose templates
	// propel-controller-manager may claim beyond its role's
	// (localenv.GrantTemplates), as a user grants their CRDs' kinds;
	// Karmada's e2e suite needs "*": it propagates RBAC objects, CRDs and
	// custom resources, which karmada-controller-manager, running as
	// system:masters, may write.
	GrantTemplates []string
	// Estimators runs one propel-scheduler-estimator per member, found by
	// the scheduler through karmada-scheduler's Service names, and turns
	// --enable-scheduler-estimator on, as Karmada's local-up does; it is
	// skipped when the binary is missing. EstimatorArgs are appended to
	// the flags local-up gives each estimator.
	Estimators    bool
	EstimatorArgs []string
	// Ports are where the controller manager and the scheduler serve
	// metrics, health and pprof (propelctl's defaults are DefaultPorts);
	// a zero port turns that endpoint off.
	Ports Ports
	// Now is the clock of the progress lines (time.Now when nil).
	Now func() time.Time
}

// state is what a second run needs to come back on the same ports.
type state struct {
	EtcdPort         int            `json:"etcdPort"`
	ControlPlanePort int            `json:"controlPlanePort"`
	MemberPorts      map[string]int `json:"memberPorts"`
}

// DefaultDir is ~/.propel/local.
func DefaultDir() string {
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".propel", "local")
}

// Topology returns the members: one fake node each, as each kind cluster of
// Karmada's e2e environment has one node (a DaemonSet runs one pod per
// member), of different sizes and in two regions, so scheduling by region
// and by available replicas means something. member1's node has fewer
// than 10 CPUs, as the kind node of a 4-CPU CI runner: Karmada's
// estimator node spec must fill it with at most 50 workloads of 200m.
func Topology(n int) []localenv.MemberOptions {
	regions := []string{"region-a", "region-b", "region-b", "region-c"}
	sizes := []localenv.NodeSpec{
		{CPU: "8", Memory: "48Gi", Pods: "220"},
		{CPU: "16", Memory: "64Gi", Pods: "110"},
		{CPU: "4", Memory: "16Gi", Pods: "60"},
	}
	out := make([]localenv.MemberOptions, n)
	for i := range out {
		name := "member" + strconv.Itoa(i+1)
		region := regions[i%len(regions)]
		zone := fmt.Sprintf("%s-zone-%d", region, i+1)
		node := sizes[i%len(sizes)]
		node.Name = name + "-node-1"
		node.Labels = map[string]string{"topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": zone}
		out[i] = localenv.MemberOptions{Name: name, Workloads: true, Metrics: true, Nodes: []localenv.NodeSpec{node}, Region: region, Zone: zone, Provider: "local"}
	}
	return out
}

// Run brings everything up, prints how to use it, and blocks until ctx ends;
// then it stops every process it started.
func Run(ctx context.Context, o Options) error {
	if o.Dir == "" {
		o.Dir = DefaultDir()
	}
	if o.Members == 0 {
		o.Members = 3
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if missing := localenv.MissingBinaries(true); len(missing) > 0 {
		return fmt.Errorf("missing binaries %v in %s: run `make up` or hack/testbin.sh", missing, localenv.BinDir())
	}
	if o.Fresh {
		if err := os.RemoveAll(o.Dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	components, err := presentKarmadaComponents(o.KarmadaBinDir)
	if err != nil {
		return err
	}
	unlock, err := writePID(o.Dir)
	if err != nil {
		return err
	}
	defer unlock()
	begin := o.Now()
	progress := localenv.NewProgress(o.Out, o.Now)
	// Every start below shares one deadline, so that a stuck process
	// ends the run with its name and log instead of waiting forever.
	startCtx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	ep := &Endpoints{Karmada: map[string]string{}}
	env, karmadaProcs, err := start(startCtx, o, progress, components, ep)
	if err != nil {
		return err
	}
	defer env.Stop()
	defer stopAll(karmadaProcs)
	estimatorsOn := false
	if o.Estimators {
		estimators, on, err := runEstimators(startCtx, o, progress, env, ep)
		defer stopAll(estimators)
		if err != nil {
			return err
		}
		estimatorsOn = on
	}
	schedulerBin, err := siblingBinary(schedulerBinary)
	separateScheduler := err == nil
	if estimatorsOn {
		// Whichever schedules asks the estimators; a flag of the
		// user's, later, still wins.
		if separateScheduler {
			o.SchedulerArgs = append([]string{enableEstimatorsFlag}, o.SchedulerArgs...)
		} else {
			o.ControllerManagerArgs = append([]string{enableEstimatorsFlag}, o.ControllerManagerArgs...)
		}
	}
	var sched *localenv.Process
	if separateScheduler {
		// Started first: it runs on its own while the controller
		// manager builds in this process.
		if sched, ep.Scheduler, err = startScheduler(o, progress, env, schedulerBin); err != nil {
			return err
		}
		defer sched.Stop()
	} else {
		fmt.Fprintf(o.Out, "local-up: %s not found next to propelctl or in PATH (`make up` builds it): the controller manager schedules in-process\n", schedulerBinary)
	}
	if ep.ControllerManager, err = startControllerManager(ctx, startCtx, o, progress, env, controllerManagerFlags(separateScheduler, o.ControllerManagerArgs)); err != nil {
		return err
	}
	if sched != nil {
		if err := waitReady(startCtx, progress, sched, *ep.Scheduler); err != nil {
			return err
		}
	}
	webhook, webhookURL, err := startExampleWebhook(startCtx, o, progress, env)
	if err != nil {
		return err
	}
	defer webhook.Stop()
	ep.ExampleWebhook = webhookURL
	if ep.SuiteKubeconfig, ep.MembersKubeconfig, err = writeSuiteKubeconfigs(o.Dir, env.ControlPlane, membersOf(env)); err != nil {
		return err
	}
	stopControl, err := serveControl(ctx, o.Dir, env)
	if err != nil {
		return err
	}
	defer stopControl()
	ep.ControlPlane = APIServerEndpoint{Name: env.ControlPlane.Name, URL: env.ControlPlane.URL, Kubeconfig: env.ControlPlane.Kubeconfig}
	for _, m := range env.Members {
		ep.Members = append(ep.Members, APIServerEndpoint{Name: m.Options.Name, URL: m.URL, Kubeconfig: m.Kubeconfig})
	}
	ep.Logs = env.LogDir
	if err := ep.write(o.Dir); err != nil {
		return err
	}
	defer os.Remove(filepath.Join(o.Dir, EndpointsFile))
	printInstructions(o, env, ep, o.Now().Sub(begin))
	<-ctx.Done()
	fmt.Fprintln(o.Out, "local-up: stopping every process")
	return nil
}

// runEstimators starts the members' estimators when their binary is
// there and records them in ep; on reports whether they run.
func runEstimators(ctx context.Context, o Options, progress *localenv.Progress, env *localenv.Environment, ep *Endpoints) (procs []*localenv.Process, on bool, err error) {
	bin, err := siblingBinary(estimatorBinary)
	if err != nil {
		fmt.Fprintf(o.Out, "local-up: %s not found next to propelctl or in PATH (`make up` builds it): the scheduler asks no estimators\n", estimatorBinary)
		return nil, false, nil
	}
	procs, eps, err := startEstimators(ctx, o, progress, env, bin)
	if err != nil {
		return procs, false, err
	}
	ep.Estimators = eps
	return procs, true, nil
}

// startTimeout bounds the whole start, from etcd to the example webhook.
const startTimeout = 5 * time.Minute

func start(startCtx context.Context, o Options, progress *localenv.Progress, components []karmadaComponent, ep *Endpoints) (env *localenv.Environment, procs []*localenv.Process, err error) {
	defer func() {
		if err != nil {
			stopAll(procs)
			env.Stop()
			env, procs = nil, nil
		}
	}()
	st := loadState(o.Dir)
	members := Topology(o.Members)
	for i := range members {
		members[i].Port = st.MemberPorts[members[i].Name]
	}
	for _, p := range append([]int{st.EtcdPort, st.ControlPlanePort}, portsOf(st)...) {
		if p != 0 {
			if err := localenv.PortFree(p); err != nil {
				return nil, nil, fmt.Errorf("%w: is another local-up running? Stop it with `propelctl local-down`, or start with --fresh", err)
			}
		}
	}
	all, err := crds.All()
	if err != nil {
		return env, procs, err
	}
	fmt.Fprintf(o.Out, "local-up: starting etcd, the control plane and %d members (state in %s, logs in %s)\n", o.Members, o.Dir, filepath.Join(o.Dir, "logs"))
	rbac, err := karmadaapiserver.Objects()
	if err != nil {
		return env, procs, err
	}
	if env, err = localenv.Start(startCtx, localenv.Options{
		Dir: o.Dir, CRDs: withoutClusterCRD(all, components), Members: members, ControlPlaneControllers: true,
		EtcdPort: st.EtcdPort, ControlPlanePort: st.ControlPlanePort,
		// Propel runs as its ServiceAccount bound to the generated role,
		// as config/deploy/karmada-apiserver deploys it, not as the admin.
		ControllerManager: &localenv.IdentityOptions{User: karmadaapiserver.UserName, Objects: rbac},
		Progress:          progress,
	}); err != nil {
		return env, procs, err
	}
	if err := saveState(o.Dir, env); err != nil {
		return env, procs, err
	}
	if err := prepareControlPlane(startCtx, env); err != nil {
		return env, procs, err
	}
	if err := grantTemplates(startCtx, o, env); err != nil {
		return env, procs, err
	}
	if err := refuseClusterCRD(startCtx, env, components); err != nil {
		return env, procs, err
	}
	if procs, err = startKarmadaComponents(startCtx, o, progress, env, components, ep); err != nil {
		return env, procs, err
	}
	for _, m := range env.Members {
		mo := m.Options
		since := progress.Now()
		_, err := join.Join(startCtx, env.ControlPlane.Config, m.Config, join.Options{Name: mo.Name, Provider: mo.Provider, Region: mo.Region, Zones: []string{mo.Zone}})
		switch {
		case errors.Is(err, join.ErrAlreadyJoined):
			// A restart on saved state: the member is registered already.
			progress.Step(fmt.Sprintf("%s joined already (%s)", mo.Name, mo.Region), since)
		case err != nil:
			return env, procs, fmt.Errorf("join %s: %w", mo.Name, err)
		default:
			progress.Step(fmt.Sprintf("joined %s (%s)", mo.Name, mo.Region), since)
		}
	}
	if err := applyClusterTaintPolicy(startCtx, env); err != nil {
		return env, procs, err
	}
	fmt.Fprintf(o.Out, "  applied ClusterTaintPolicy from config/samples/%s (NoExecute while Ready is not True)\n", clusterTaintPolicySample)
	return env, procs, nil
}

// prepareControlPlane creates the namespace Karmada keeps its leases in
// and grants the admin the proxy to every member, before the members join.
func prepareControlPlane(ctx context.Context, env *localenv.Environment) error {
	kube, err := kubernetes.NewForConfig(env.ControlPlane.Config)
	if err != nil {
		return err
	}
	_, err = kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.SystemNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", names.SystemNamespace, err)
	}
	return grantClusterProxy(ctx, kube, localenv.AdminUser)
}

// grantTemplates lets propel-controller-manager claim the templates of
// o.GrantTemplates (ClusterRole propel-templates-local-up).
func grantTemplates(ctx context.Context, o Options, env *localenv.Environment) error {
	if len(o.GrantTemplates) == 0 {
		return nil
	}
	kube, err := kubernetes.NewForConfig(env.ControlPlane.Config)
	if err != nil {
		return err
	}
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: karmadaapiserver.ServiceAccountNamespace, Name: karmadaapiserver.ServiceAccountName}
	if err := localenv.GrantTemplates(ctx, kube, subject, "local-up", o.GrantTemplates...); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "  granted propel-controller-manager the claim of templates in the API groups %v (ClusterRole %s)\n", o.GrantTemplates, localenv.TemplatesRole("local-up").Name)
	return nil
}

// FeatureGates are the gates local-up turns on in the controller manager
// and the scheduler: cluster failover, FederatedResourceQuota enforcement
// and the MultiClusterService controllers, so that every failover, quota
// and service controller can be tried.
const FeatureGates = "Failover=true,FederatedQuotaEnforcement=true,MultiClusterService=true"

// FailoverFlags turn cluster failover on, with cluster health timings short
// enough that a stopped member is noticed within seconds (Karmada's defaults:
// status every 10s, 30s failure/success thresholds, 40s monitor grace
// period, 0.5 evictions per second). The failure threshold stays a few
// status periods long so that one slow health check on a busy machine does
// not taint a member: the taint manager evicts every binding there, not
// only those with spec.failover.cluster. docs/quickstart.md lists them.
var FailoverFlags = []string{
	"--feature-gates=" + FeatureGates,
	"--enable-no-execute-taint-eviction=true",
	"--resource-eviction-rate=50",
	"--cluster-status-update-frequency=1s",
	"--cluster-failure-threshold=5s",
	"--cluster-success-threshold=3s",
	"--cluster-monitor-period=1s",
	"--cluster-monitor-grace-period=10s",
	"--cluster-startup-grace-period=20s",
}

// controllerManagerFlags are FailoverFlags with --controllers: Karmada's
// default set ('*') when propel-scheduler runs as its own process, as
// karmada-scheduler does beside karmada-controller-manager; '*,scheduler'
// (the in-process scheduler, which '*' leaves off) when local-up has no
// propel-scheduler binary to run. extra comes last, so it wins.
func controllerManagerFlags(separateScheduler bool, extra []string) []string {
	controllers := "--controllers=*,scheduler"
	if separateScheduler {
		controllers = "--controllers=*"
	}
	out := append([]string{controllers}, FailoverFlags...)
	return append(out, extra...)
}

// clusterTaintPolicySample is the ClusterTaintPolicy local-up applies.
const clusterTaintPolicySample = "failover/clustertaintpolicy.yaml"

// applyClusterTaintPolicy creates (or updates) the sample ClusterTaintPolicy
// that taints a not-Ready cluster NoExecute.
func applyClusterTaintPolicy(ctx context.Context, env *localenv.Environment) error {
	c, err := client.New(env.ControlPlane.Config, client.Options{Scheme: apis.Scheme})
	if err != nil {
		return err
	}
	obj, err := sampleObject(clusterTaintPolicySample, nil)
	if err != nil {
		return err
	}
	return applyObject(ctx, c, obj)
}

// startControllerManager builds and starts propel-controller-manager in
// this process, on o.Ports unless flags name other addresses, and waits
// until it answers /readyz (when its health probes are on).
func startControllerManager(ctx, startCtx context.Context, o Options, progress *localenv.Progress, env *localenv.Environment, flags []string) (Serving, error) {
	const name = "propel-controller-manager"
	logPath := filepath.Join(env.LogDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return Serving{}, err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile)))
	opts := controllermanager.NewOptions()
	if err := defaultServing(o.Out, name, &opts.Serving, o.Ports.ControllerManagerMetrics, o.Ports.ControllerManagerHealth, o.Ports.ControllerManagerPprof); err != nil {
		return Serving{}, err
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	opts.AddFlags(fs)
	if err := fs.Parse(flags); err != nil {
		return Serving{}, fmt.Errorf("%s flags: %w", name, err)
	}
	opts.Kubeconfig = env.ControllerManager.Kubeconfig
	serving := servingOf(opts.Serving)
	progress.Starting(name)
	fmt.Fprintf(o.Out, "    flags: %s\n", strings.Join(flags, " "))
	mgr, _, err := controllermanager.Build(ctx, opts)
	if err != nil {
		return serving, fmt.Errorf("%s: %w (log: %s)", name, err, logPath)
	}
	stopped := make(chan error, 1)
	go func() {
		err := mgr.Start(logr.NewContext(ctx, ctrl.Log))
		if err != nil {
			fmt.Fprintf(o.Out, "local-up: %s stopped: %v (log: %s)\n", name, err, logPath)
		}
		stopped <- err
	}()
	if serving.Readyz == "" {
		fmt.Fprintf(o.Out, "  %s started (health probes off)\n", name)
		return serving, nil
	}
	check := httpOK(serving.Readyz)
	for {
		if check(startCtx) == nil {
			progress.Ready(name)
			return serving, nil
		}
		select {
		case err := <-stopped:
			return serving, fmt.Errorf("%s stopped before it was ready: %v; see %s", name, err, logPath)
		case <-startCtx.Done():
			return serving, fmt.Errorf("%s is not ready: timed out waiting for %s; see %s", name, serving.Readyz, logPath)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// defaultServing points s at 127.0.0.1 on the given ports (a free port
// for one that is taken), before the manager's flags are parsed so that a
// flag of the user's still wins.
func defaultServing(out io.Writer, name string, s *managerbase.Serving, metrics, health, pprof int) (err error) {
	if s.MetricsBindAddress, err = localAddress(out, name+" metrics", metrics); err != nil {
		return err
	}
	if s.HealthProbeBindAddress, err = localAddress(out, name+" health probes", health); err != nil {
		return err
	}
	s.ProfilingBindAddress, err = localAddress(out, name+" pprof", pprof)
	return err
}

func printInstructions(o Options, env *localenv.Environment, ep *Endpoints, took time.Duration) {
	kubectl := filepath.Join(localenv.BinDir(), "kubectl")
	fmt.Fprintf(o.Out, "\nPropel is running (started in %s).\n", took.Round(100*time.Millisecond))
	ep.Print(o.Out)
	fmt.Fprintf(o.Out, `  (also in %[5]s)

Try:
  export KUBECONFIG=%[1]s
  %[2]s get clusters
  %[2]s apply -f config/samples/nginx/     # a Deployment duplicated to member1 and member2
  %[2]s --kubeconfig %[3]s get deployments,pods

Logs are in %[4]s. Stop with Ctrl-C or `+"`propelctl local-down`"+`.
`, env.ControlPlane.Kubeconfig, kubectl, env.Members[0].Kubeconfig, env.LogDir, filepath.Join(o.Dir, EndpointsFile))
}

func portsOf(st state) []int {
	var out []int
	for _, p := range st.MemberPorts {
		out = append(out, p)
	}
	return out
}

func loadState(dir string) state {
	st := state{MemberPorts: map[string]int{}}
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err == nil {
		_ = json.Unmarshal(data, &st)
	}
	if st.MemberPorts == nil {
		st.MemberPorts = map[string]int{}
	}
	return st
}

func saveState(dir string, env *localenv.Environment) error {
	st := state{MemberPorts: map[string]int{}}
	st.EtcdPort = portOf(env.Etcd.URL)
	st.ControlPlanePort = portOf(env.ControlPlane.URL)
	for _, m := range env.Members {
		st.MemberPorts[m.Options.Name] = portOf(m.URL)
	}
	data, _ := json.MarshalIndent(st, "", "  ")
	return os.WriteFile(filepath.Join(dir, "state.json"), data, 0o644)
}

func portOf(url string) int {
	for i := len(url) - 1; i >= 0; i-- {
		if url[i] == ':' {
			p, _ := strconv.Atoi(url[i+1:])
			return p
		}
	}
	return 0
}

// writePID records this process so local-down can stop it; a live pid
// already there means another local-up is running.
func writePID(dir string) (func(), error) {
	path := filepath.Join(dir, "local-up.pid")
	if pid, err := readPID(dir); err == nil && syscall.Kill(pid, 0) == nil {
		return nil, fmt.Errorf("local-up is already running (pid %d); stop it with `propelctl local-down`", pid)
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	return func() { _ = os.Remove(path) }, nil
}

func readPID(dir string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, "local-up.pid"))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(string(data))
}

// Down stops a running local-up and waits until it has exited.
func Down(dir string, out io.Writer) error {
	if dir == "" {
		dir = DefaultDir()
	}
	pid, err := readPID(dir)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(out, "local-down: nothing is running")
		return nil
	}
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		_ = os.Remove(filepath.Join(dir, "local-up.pid"))
		fmt.Fprintln(out, "local-down: nothing is running")
		return nil
	}
	for i := 0; i < 60 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(500 * time.Millisecond)
	}
	fmt.Fprintf(out, "local-down: stopped local-up (pid %d)\n", pid)
	return nil
}
