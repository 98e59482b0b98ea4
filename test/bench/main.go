// Command bench measures Propel end to end on real API servers: N
// Deployments with one PropagationPolicy to every member cluster. It runs
// propel-controller-manager as its own process (so its peak memory is its
// own) and reports the seconds until every Work is applied and until every
// binding has the aggregated status of all clusters, the API writes per
// propagated Deployment (from the API servers' own request metrics), what
// each write is, and the controller manager's peak memory. Progress is
// observed through watches, not list polling, so the benchmark does not
// load the API server it measures.
//
// It also reports the CPU seconds of every process of the environment
// (from /proc/<pid>/stat) and the event writes, with the control plane's
// events by reason.
//
//	go run ./test/bench -n 1000
//	go run ./test/bench -n 1000 -binding-stage   # the binding controller alone
//	go run ./test/bench -n 1000 -template-status # then a member status change of every Deployment
//	go run ./test/bench -n 500 -failover         # cluster failover of a member running N Deployments
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/cli/localup"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

func main() {
	var cfg config
	flag.IntVar(&cfg.n, "n", 1000, "number of Deployments")
	flag.IntVar(&cfg.members, "members", 3, "number of member clusters (bare API servers: only Propel's work is measured)")
	flag.DurationVar(&cfg.timeout, "timeout", 30*time.Minute, "give up after this long")
	flag.IntVar(&cfg.policies, "policies", 1, "number of PropagationPolicies; all but one select other Deployments (matching must not slow down)")
	flag.BoolVar(&cfg.bindingStage, "binding-stage", false, "measure the binding controller alone: schedule every binding with it disabled, restart the controller manager with only it and time the Works, then finish with every controller")
	flag.StringVar(&cfg.cmArgs, "cm-args", "", "extra flags for propel-controller-manager, space separated (e.g. --concurrent-resourcebinding-syncs=10)")
	flag.BoolVar(&cfg.templateStatus, "template-status", false, "after the run, make every member report a status change of every Deployment and measure the template status stage (AggregateStatus into every template) alone: time, writes and CPU per template")
	flag.StringVar(&cfg.apiserverProfile, "apiserver-profile", "", "write a 30 s CPU profile of the control-plane kube-apiserver, taken 20 s after the first Deployment is created, to this file")
	flag.BoolVar(&cfg.failover, "failover", false, "measure cluster failover instead: N two-replica Deployments on member1 and member2 (3 members with real workloads), then member1's API server stops; time to taint, evict, Ready elsewhere and end of the eviction tasks, and control-plane writes per evicted binding (add --resource-eviction-rate=... to -cm-args to raise Karmada's 0.5/s)")
	flag.StringVar(&cfg.pprof, "pprof", "", "serve the controller manager's pprof on this address (e.g. 127.0.0.1:6060)")
	flag.IntVar(&cfg.nodes, "nodes", 0, "Node objects to create on every member before Propel starts (Ready, with capacity and topology labels, as kwok leaves them; no kubelet)")
	flag.IntVar(&cfg.pods, "pods", 0, fmt.Sprintf("Running Pod objects to create on every member, bound to the -nodes round robin (at most %d per node)", podsPerNode))
	flag.IntVar(&cfg.loadWorkers, "load-workers", 32, "requests in flight per member while creating -nodes and -pods")
	flag.StringVar(&cfg.placement, "placement", placementAll, "all: one policy, every Deployment to every member; subset: each Deployment to 5..50 pseudo-random members (one policy per group, at most 100 groups); mixed: subsets, Duplicated and weighted Divided policies in turn")
	flag.DurationVar(&cfg.idle, "idle", 0, "after every binding is aggregated, stay idle this long and report the requests Propel makes per member per minute (0: skip)")
	flag.BoolVar(&cfg.lowMemoryMembers, "low-memory-members", false, "run the member API servers without watch cache and with a tighter Go heap, so that tens of members fit on one machine")
	flag.StringVar(&cfg.cmBin, "cm-bin", "", "run this controller manager binary instead of building the working tree's propel-controller-manager (to compare two builds, or with -scheduler-bin another implementation of the same flags, on one machine)")
	flag.StringVar(&cfg.schedulerBin, "scheduler-bin", "", "run the scheduler apart, as Karmada's installers deploy it, from this binary (propel-scheduler or another implementation of its flags); the controller manager then runs --controllers=* without the in-process scheduler")
	flag.BoolVar(&cfg.adminIdentity, "admin-identity", false, "run the controller manager (and -scheduler-bin) as the control plane's admin instead of Propel's least-privilege ServiceAccount, for an implementation that needs verbs Propel's role does not grant")
	flag.StringVar(&cfg.webhookBinDir, "karmada-webhook-bin-dir", "", "run karmada-webhook from this directory beside the control plane and register its webhook configurations, as Karmada's installers do (Karmada's own controllers rely on the labels it sets; Propel's do not)")
	flag.BoolVar(&cfg.keepLogs, "keep-logs", false, "keep the run's directory (every process's log under env/) instead of removing it, and print where it is")
	flag.Parse()
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type config struct {
	n, members, policies int
	nodes, pods          int
	loadWorkers          int
	placement            string
	idle                 time.Duration
	lowMemoryMembers     bool
	timeout              time.Duration
	bindingStage         bool
	templateStatus       bool
	failover             bool
	pprof                string
	cmBin                string
	schedulerBin         string
	adminIdentity        bool
	webhookBinDir        string
	apiserverProfile     string
	cmArgs               string
	keepLogs             bool
	// metricsAddr is where the controller manager serves /metrics ("" for
	// nowhere); schedulerMetricsAddr the scheduler's, when it runs apart.
	metricsAddr, schedulerMetricsAddr string
}

func run(cfg config) error {
	ctrllog.SetLogger(logr.Discard()) // the observer's informers log nothing worth reading here
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "propel-bench-")
	if err != nil {
		return err
	}
	if cfg.keepLogs {
		fmt.Fprintf(os.Stderr, "bench: keeping the logs in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	if cfg.failover {
		return runFailover(ctx, cfg, dir)
	}
	if err := validPlacement(cfg.placement); err != nil {
		return err
	}
	if cfg.schedulerBin != "" && cfg.bindingStage {
		return fmt.Errorf("-binding-stage restarts the controller manager with and without the in-process scheduler; it does not combine with -scheduler-bin")
	}
	if err := validLoad(cfg.nodes, cfg.pods); err != nil {
		return err
	}
	var ms []localenv.MemberOptions
	for i := 1; i <= cfg.members; i++ {
		ms = append(ms, localenv.MemberOptions{Name: memberName(i), LowMemory: cfg.lowMemoryMembers})
	}
	fmt.Fprintf(os.Stderr, "bench: starting a control plane and %d members\n", cfg.members)
	env, err := harness.Start(ctx, filepath.Join(dir, "env"), harness.Options{Members: ms})
	if err != nil {
		return err
	}
	defer env.Stop()
	if cfg.webhookBinDir != "" {
		webhook, err := localup.StartKarmadaWebhook(ctx, env.Environment, cfg.webhookBinDir, localenv.NewProgress(os.Stderr, time.Now))
		if err != nil {
			return err
		}
		defer webhook.Stop()
	}
	loadTime, err := loadMembers(ctx, env.Members, cfg.nodes, cfg.pods, cfg.loadWorkers)
	if err != nil {
		return err
	}
	if loadTime > 0 {
		fmt.Fprintf(os.Stderr, "bench: members loaded in %.1f s\n", loadTime.Seconds())
	}
	clusters := cfg.members // every binding goes to every member
	if cfg.placement != placementAll {
		clusters = 0 // as many as each binding is scheduled to
	}
	obs := newObserver(clusters)
	if err := obs.start(ctx, env.ControlPlane.Config); err != nil {
		return err
	}
	if cfg.metricsAddr, err = freeLocalAddress(); err != nil {
		return err
	}
	bin, err := controllerManagerBinary(ctx, cfg, dir)
	if err != nil {
		return err
	}
	var firstArgs []string
	if cfg.bindingStage {
		firstArgs = []string{"--controllers=*,scheduler,-binding"}
	}
	if firstArgs == nil {
		firstArgs = []string{allControllers}
	}
	if cfg.schedulerBin != "" {
		firstArgs = []string{"--controllers=*"}
		if cfg.schedulerMetricsAddr, err = freeLocalAddress(); err != nil {
			return err
		}
	}
	cm, err := startControllerManager(env, bin, cfg, firstArgs...)
	if err != nil {
		return err
	}
	defer func() { cm.Stop() }()
	propelProcs := []*localenv.Process{cm}
	var sched *localenv.Process
	if cfg.schedulerBin != "" {
		if sched, err = startScheduler(env, cfg); err != nil {
			return err
		}
		defer sched.Stop()
		propelProcs = append(propelProcs, sched)
	}
	if err := waitClustersReady(ctx, env.Client, cfg.members); err != nil {
		return err
	}
	before, err := writeCounts(ctx, env)
	if err != nil {
		return err
	}
	cpu := newCPUMeter(env)
	if sched != nil {
		cpu.add(schedulerName, sched)
	}
	cpu.begin()
	cpu.controllerManager(cm)
	if err := createDecoyPolicies(ctx, env.Client, cfg.policies-1); err != nil {
		return err
	}
	r := result{cfg: cfg, start: time.Now(), load: loadTime}
	if cfg.apiserverProfile != "" {
		go profileAPIServer(ctx, env.ControlPlane.Config, cfg.apiserverProfile, 20*time.Second, 30)
	}
	if r.createdAt, err = createWorkload(ctx, env.Client, cfg.placement, cfg.n, cfg.members); err != nil {
		return err
	}
	r.created = time.Now()
	if cfg.bindingStage {
		if _, err := obs.waitUntil(ctx, func(s snapshot) bool { return s.scheduled.count >= cfg.n }); err != nil {
			return fmt.Errorf("waiting for scheduled bindings: %w", err)
		}
		r.peakMiB = peakRSS(cm.Pid())
		cpu.end()
		cm.Stop()
		fmt.Fprintln(os.Stderr, "bench: every binding scheduled; restarting the controller manager with the binding controller")
		r.restart = time.Now()
		// Only the binding controller (and the always-on detector, idle
		// now) runs, so the Works/s are the binding stage's own.
		if cm, err = startControllerManager(env, bin, cfg, "--controllers=binding"); err != nil {
			return err
		}
		cpu.controllerManager(cm)
		if _, err := obs.waitUntil(ctx, func(s snapshot) bool { return s.works.count >= s.wantWorks }); err != nil {
			return fmt.Errorf("waiting for Works: %w", err)
		}
		r.peakMiB = max(r.peakMiB, peakRSS(cm.Pid()))
		cpu.end()
		cm.Stop()
		fmt.Fprintln(os.Stderr, "bench: every Work created; restarting the controller manager with every controller")
		if cm, err = startControllerManager(env, bin, cfg, allControllers); err != nil {
			return err
		}
		cpu.controllerManager(cm)
	}
	r.stages, err = obs.waitUntil(ctx, func(s snapshot) bool { return s.aggregated.count >= cfg.n })
	if err != nil {
		return fmt.Errorf("waiting for aggregated status: %w", err)
	}
	time.Sleep(5 * time.Second) // let trailing status writes land before counting
	cpu.end()
	r.cpu = cpu
	after, err := settledWriteCounts(ctx, env)
	if err != nil {
		return err
	}
	if r.events, err = eventReasons(ctx, env); err != nil {
		return err
	}
	before["karmada POST propagationpolicies"] += float64(cfg.policies - 1 + placementGroupCount(cfg.placement, cfg.n) - 1)
	r.peakMiB = max(r.peakMiB, peakRSS(cm.Pid()))
	if sched != nil {
		r.schedulerPeakMiB = peakRSS(sched.Pid())
	}
	if cfg.bindingStage {
		cm.Stop()
		if r.ceilingWorks, r.ceilingTime, err = apiCeiling(ctx, env.ControlPlane.Config, 15); err != nil {
			return fmt.Errorf("API ceiling: %w", err)
		}
	}
	schedule, endToEnd := obs.latencies(r.createdAt)
	r.schedule, r.endToEnd = distributionOf(schedule).scaled(1000), distributionOf(endToEnd)
	r.report(before, after)
	if cfg.nodes > 0 {
		if err := reportClusterSummary(ctx, env.Client, memberName(1)); err != nil {
			return err
		}
	}
	if cfg.idle > 0 {
		if r.idle, err = measureIdle(ctx, env, propelProcs, cfg.idle); err != nil {
			return fmt.Errorf("idle: %w", err)
		}
		r.idle.report()
	}
	// A build from before the histogram existed (-cm-bin) has no figure.
	if r.decisions, err = scrapeDecisionMillis(ctx, cmp.Or(cfg.schedulerMetricsAddr, cfg.metricsAddr)); err != nil {
		fmt.Fprintf(os.Stderr, "bench: scheduler, decision and write per binding: %v\n", err)
	} else {
		fmt.Fprintf(os.Stderr, "bench: scheduler, decision and write per binding: %s\n", r.decisions)
	}
	r.summary(env, before, after).print()
	if cfg.templateStatus {
		st, err := runTemplateStatusStage(ctx, env, cm, cfg.n)
		if err != nil {
			return err
		}
		st.report()
	}
	return nil
}

// peakRSS is VmHWM of process pid, in MiB.
func peakRSS(pid int) float64 { return statusMiB(pid, "VmHWM:") }

// currentRSS is VmRSS of process pid, in MiB.
func currentRSS(pid int) float64 { return statusMiB(pid, "VmRSS:") }

// statusMiB is a kB field of /proc/<pid>/status, in MiB; -1 if absent.
func statusMiB(pid int, field string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field) {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, field)), "%f", &kb)
			return kb / 1024
		}
	}
	return -1
}

// controllerManagerBinary is -cm-bin, else the working tree's
// propel-controller-manager built into dir.
func controllerManagerBinary(ctx context.Context, cfg config, dir string) (string, error) {
	if cfg.cmBin != "" {
		fmt.Fprintf(os.Stderr, "bench: running %s\n", cfg.cmBin)
		return cfg.cmBin, nil
	}
	fmt.Fprintln(os.Stderr, "bench: building propel-controller-manager")
	return harness.BuildControllerManager(ctx, dir)
}

// startScheduler runs -scheduler-bin with the controller manager's
// identity and the benchmark's client limits; its flags are Karmada's
// scheduler's, which propel-scheduler takes too.
func startScheduler(env *harness.Env, cfg config) (*localenv.Process, error) {
	fmt.Fprintf(os.Stderr, "bench: running %s apart\n", cfg.schedulerBin)
	args := append(identityArgs(env, cfg), "--leader-elect=false",
		"--metrics-bind-address="+cfg.schedulerMetricsAddr, "--health-probe-bind-address=0",
		"--kube-api-qps=500", "--kube-api-burst=1000")
	return env.StartControllerManager(cfg.schedulerBin, schedulerName, args...)
}

// allControllers is Karmada's default set plus the in-process scheduler:
// the benchmark runs one process, as Karmada's controller manager and
// scheduler together.
const allControllers = "--controllers=*,scheduler"

func startControllerManager(env *harness.Env, bin string, cfg config, extra ...string) (*localenv.Process, error) {
	metricsAddr := cmp.Or(cfg.metricsAddr, "0")
	args := []string{"--leader-elect=false",
		"--metrics-bind-address=" + metricsAddr, "--health-probe-bind-address=0",
		"--kube-api-qps=500", "--kube-api-burst=1000", "--cluster-api-qps=500", "--cluster-api-burst=1000",
		"--cluster-status-update-frequency=2s"}
	if cfg.pprof != "" {
		args = append(args, "--enable-pprof", "--profiling-bind-address="+cfg.pprof)
	}
	args = append(args, strings.Fields(cfg.cmArgs)...)
	return env.StartControllerManager(bin, "propel-controller-manager", append(identityArgs(env, cfg), append(args, extra...)...)...)
}

// identityArgs is the admin's kubeconfig with -admin-identity (a later
// --kubeconfig wins over the one the harness puts first), else nothing:
// Propel's processes run with their own least-privilege identity.
func identityArgs(env *harness.Env, cfg config) []string {
	if !cfg.adminIdentity {
		return nil
	}
	return []string{"--kubeconfig=" + env.ControlPlane.Kubeconfig}
}

func waitClustersReady(ctx context.Context, c client.Client, want int) error {
	return wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ready, _ := harness.ClustersReady(ctx, c, want)
		return ready, nil
	})
}

// createWorkload creates the placement's policies and n Deployments, 20 at
// a time, and returns when each Deployment was created, by the name of
// its binding.
func createWorkload(ctx context.Context, c client.Client, placement string, n, members int) (map[string]time.Time, error) {
	groups := placementGroupCount(placement, n)
	for g := range groups {
		if err := c.Create(ctx, groupPolicy(placement, g, members)); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(os.Stderr, "bench: creating %d Deployments\n", n)
	objs := make([]client.Object, n)
	for i := range objs {
		objs[i] = benchDeployment(placement, i, groups, members)
	}
	tc := &timedClient{Client: c, created: make(map[string]time.Time, n)}
	err := harness.CreateConcurrently(ctx, tc, 20, objs)
	return tc.created, err
}

// timedClient records when each create returned, by the name of the
// Deployment's ResourceBinding.
type timedClient struct {
	client.Client
	mu      sync.Mutex
	created map[string]time.Time
}

func (c *timedClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if err := c.Client.Create(ctx, obj, opts...); err != nil {
		return err
	}
	now := time.Now()
	c.mu.Lock()
	c.created[names.BindingName("Deployment", obj.GetName())] = now
	c.mu.Unlock()
	return nil
}

// createDecoyPolicies adds policies that select other Deployments, so the
// run shows whether matching slows down with the number of policies.
func createDecoyPolicies(ctx context.Context, c client.Client, count int) error {
	for i := range count {
		pol := &policyv1alpha1.PropagationPolicy{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("decoy-%d", i)},
			Spec: policyv1alpha1.PropagationSpec{
				ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment",
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"decoy": fmt.Sprint(i)}}}},
			},
		}
		if err := c.Create(ctx, pol); err != nil {
			return err
		}
	}
	return nil
}

// result is one run's record.
type result struct {
	cfg       config
	start     time.Time            // first Deployment created
	created   time.Time            // last Deployment created
	createdAt map[string]time.Time // by binding name: when its Deployment was created
	restart   time.Time            // -binding-stage: the controller manager with the binding controller started
	stages    snapshot
	peakMiB   float64
	// schedulerPeakMiB is the scheduler's peak when it runs apart.
	schedulerPeakMiB float64
	cpu              *cpuMeter
	events           []eventReason
	load             time.Duration // -nodes and -pods created, before the controller manager started
	idle             *idleCost
	// per binding: seconds from first seen to scheduled, and from its
	// Deployment created to all its Works applied
	schedule, endToEnd distribution
	// the scheduler's own time per binding, from its metrics
	decisions decisionMillis
	// -binding-stage: a plain client creating the same Works.
	ceilingWorks int
	ceilingTime  time.Duration
}

// report prints the stage table and the API writes per Deployment.
func (r result) report(before, after map[string]float64) {
	n, s := r.cfg.n, r.stages
	since := func(t time.Time) float64 { return t.Sub(r.start).Seconds() }
	if r.load > 0 {
		fmt.Printf("\nThe benchmark created %d nodes and %d Running pods on each of the %d members in %.1f s, before the controller manager started.\n",
			r.cfg.nodes, r.cfg.pods, r.cfg.members, r.load.Seconds())
	}
	fmt.Printf("\nThe benchmark created the %d Deployments (20 at a time) in %.1f s.\n", n, since(r.created))
	fmt.Printf("\n| N | clusters | policies | all bindings created | all Works created | all Works applied | all bindings aggregated | API writes per Deployment | peak memory |\n|---|---|---|---|---|---|---|---|---|\n")
	fmt.Printf("| %d | %d | %d | %.1f s (%.0f templates/s) | %.1f s (%.0f Works/s) | %.1f s | %.1f s | %.1f | %.0f MiB |\n\n",
		n, r.cfg.members, r.cfg.policies,
		since(s.bound.last), float64(n)/since(s.bound.last),
		since(s.works.last), float64(s.works.count)/since(s.works.last),
		since(s.applied.last), since(s.aggregated.last), r.writesPerDeployment(before, after), r.peakMiB)
	if r.schedulerPeakMiB > 0 {
		fmt.Printf("Peak memory above is the controller manager's; the scheduler, run apart, peaked at %.0f MiB.\n\n", r.schedulerPeakMiB)
	}
	if !r.restart.IsZero() {
		fmt.Printf("Binding stage alone: the controller manager started with only the binding controller and %d scheduled bindings; first Work after %.1f s (start-up and cache sync), all %d Works %.1f s later: **%.0f Works/s**.\n\n",
			n, s.works.first.Sub(r.restart).Seconds(), s.works.count, s.works.last.Sub(s.works.first).Seconds(), s.works.rate())
		fmt.Printf("API server ceiling: a plain client creating copies of the same %d Works, 15 at a time, made %.0f Works/s.\n\n",
			r.ceilingWorks, float64(r.ceilingWorks)/r.ceilingTime.Seconds())
	} else {
		fmt.Printf("Stage rates while running (first to last object): bindings %.0f/s, Works created %.0f/s, Works applied %.0f/s, bindings aggregated %.0f/s.\n\n",
			s.bound.rate(), s.works.rate(), s.applied.rate(), s.aggregated.rate())
	}
	fmt.Printf("Per binding: scheduled %s ms after it appeared; all its Works applied %s s after its Deployment was created.\n\n", r.schedule, r.endToEnd)
	delta := writeDelta(before, after, n)
	keys := make([]string, 0, len(delta))
	for k := range delta {
		if delta[k] > 0 && !isEventWrite(k) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return delta[keys[i]] > delta[keys[j]] })
	fmt.Println("| writes per Deployment | API server, verb, resource |\n|---|---|")
	for _, k := range keys {
		fmt.Printf("| %.2f | %s |\n", delta[k]/float64(n), k)
	}
	r.reportEvents(delta)
	r.reportCPU()
}

// reportEvents prints the event writes per Deployment (not in the writes
// above) and the events the control plane holds at the end, by reason.
func (r result) reportEvents(delta map[string]float64) {
	n := float64(r.cfg.n)
	total, byVerb := 0.0, []string{}
	for k, d := range delta {
		if isEventWrite(k) && d > 0 {
			total += d
			byVerb = append(byVerb, fmt.Sprintf("%s %.2f", k, d/n))
		}
	}
	sort.Strings(byVerb)
	fmt.Printf("\nEvent writes per Deployment (all API servers): %.2f (%s)\n\n", total/n, strings.Join(byVerb, ", "))
	fmt.Println("| events per Deployment | occurrences per Deployment | source, type, reason, kind |\n|---|---|---|")
	for _, e := range r.events {
		fmt.Printf("| %.2f | %.2f | %s |\n", float64(e.objects)/n, float64(e.count)/n, e.key)
	}
}

// reportCPU prints the CPU seconds each process of the environment spent
// from the first Deployment created to the end (aggregated + 5 s).
func (r result) reportCPU() {
	m := r.cpu
	n := float64(r.cfg.n)
	fmt.Println("\n| process | CPU s | CPU ms per Deployment |\n|---|---|---|")
	for _, name := range m.order {
		d := m.spent[name]
		fmt.Printf("| %s | %.1f | %.1f |\n", name, d.Seconds(), d.Seconds()*1000/n)
	}
	t := m.propelTotal()
	fmt.Printf("| **controller manager + control-plane kube-apiserver + etcd** | **%.1f** | **%.1f** |\n", t.Seconds(), t.Seconds()*1000/n)
}

func (r result) writesPerDeployment(before, after map[string]float64) float64 {
	total := 0.0
	for k, d := range writeDelta(before, after, r.cfg.n) {
		if d > 0 && !isEventWrite(k) {
			total += d
		}
	}
	return total / float64(r.cfg.n)
}

// writeDelta is the writes made during the run, less the benchmark's own
// (the policy and the Deployments).
func writeDelta(before, after map[string]float64, n int) map[string]float64 {
	delta := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			delta[k] = d
		}
	}
	delta["karmada POST deployments"] -= float64(n)
	delta["karmada POST propagationpolicies"]--
	return delta
}
