package lifecycle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/test/harness"
)

// Karmada's stock arguments (karmada-flags/README.md and
// karmada-installers.md, from Karmada's artifacts/deploy manifests),
// unchanged: only the kubeconfig and certificate paths and $(POD_IP) are
// replaced.
var (
	stockControllerManagerArgs = []string{
		"--kubeconfig=/etc/karmada/config/karmada.config",
		"--cluster-status-update-frequency=10s",
		"--controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer",
		"--feature-gates=AllAlpha=true,AllBeta=true",
		"--metrics-bind-address=$(POD_IP):8080",
		"--health-probe-bind-address=$(POD_IP):10357",
		"--enable-no-execute-taint-eviction=true",
		"--logging-format=json",
		"--v=4",
	}
	stockSchedulerArgs = []string{
		"--kubeconfig=/etc/karmada/config/karmada.config",
		"--metrics-bind-address=$(POD_IP):8080",
		"--health-probe-bind-address=$(POD_IP):10351",
		"--enable-scheduler-estimator=true",
		"--scheduler-estimator-ca-file=/etc/karmada/pki/scheduler-estimator-client/ca.crt",
		"--scheduler-estimator-cert-file=/etc/karmada/pki/scheduler-estimator-client/tls.crt",
		"--scheduler-estimator-key-file=/etc/karmada/pki/scheduler-estimator-client/tls.key",
		"--feature-gates=AllAlpha=true,AllBeta=true",
		"--logging-format=json",
		"--v=4",
	}
	stockEstimatorArgs = []string{
		"--kubeconfig=/etc/member1-kubeconfig",
		"--cluster-name=member1",
		"--grpc-auth-cert-file=/etc/karmada/pki/server/tls.crt",
		"--grpc-auth-key-file=/etc/karmada/pki/server/tls.key",
		"--grpc-client-ca-file=/etc/karmada/pki/server/ca.crt",
		"--metrics-bind-address=$(POD_IP):8080",
		"--health-probe-bind-address=$(POD_IP):10351",
		"--feature-gates=AllAlpha=true,AllBeta=true",
		"--logging-format=json",
		"--v=4",
	}
)

// localize replaces the paths of args by the test environment's (old to
// new in paths) and $(POD_IP) by podIP.
func localize(args []string, paths map[string]string, podIP string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for old, repl := range paths {
			a = strings.ReplaceAll(a, old, repl)
		}
		out[i] = strings.ReplaceAll(a, "$(POD_IP)", podIP)
	}
	return out
}

// podIPs are loopback addresses standing for pods' IPs, so that the
// processes bind the stock ports (8080 each) as in separate pods.
func podIPs() (cm, sched, est string) {
	n := os.Getpid()
	base := fmt.Sprintf("127.%d.%d.", 1+n%200, n/200%250)
	return base + "2", base + "3", base + "4"
}

// buildBinary compiles ./cmd/<name> into the environment's directory.
func buildBinary(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(env.Dir, name)
	build := exec.Command("go", "build", "-o", bin, "./cmd/"+name)
	build.Dir = harness.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, out)
	}
	return bin
}

// stockPKI lays out certificates where Karmada's manifests mount them
// (under dir instead of /etc/karmada/pki): the estimator's serving pair
// and the scheduler's client pair, with the CA beside each.
func stockPKI(t *testing.T, dir string) {
	t.Helper()
	server, err := env.PKI.IssueServing("stock-estimator-server")
	if err != nil {
		t.Fatal(err)
	}
	client, err := env.PKI.IssueClient("stock-estimator-client", "system:karmada:karmada-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(env.PKI.Dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	for sub, pair := range map[string]*localenv.CertPair{"server": server, "scheduler-estimator-client": client} {
		files := map[string][]byte{"tls.crt": pair.CertPEM, "tls.key": pair.KeyPEM, "ca.crt": ca}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, sub, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func healthy(ctx context.Context, url string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, nil
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

// jsonLog reports whether every line of the log is a JSON object and
// whether one mentions all of want.
func jsonLog(t *testing.T, path string, want ...string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			continue // Go runtime or build output, not the logger's
		}
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Errorf("%s: not JSON: %q", path, line)
			return false
		}
		all := true
		for _, w := range want {
			all = all && strings.Contains(line, w)
		}
		found = found || all
	}
	return found
}

// TestKarmadaStockArguments runs propel-controller-manager,
// propel-scheduler and propel-scheduler-estimator with Karmada's own
// deployment arguments, unchanged: all start and answer their liveness
// probes and plain-HTTP metrics scrapes on Karmada's ports, the first two
// hold Karmada's Leases, all log JSON (naming their version, and the
// accepted-but-inactive gates once), and together the controller manager
// and the scheduler propagate a Deployment: the stock --controllers does
// not start a second scheduler in the controller manager.
func TestKarmadaStockArguments(t *testing.T) {
	const ns = "lifecycle-stock"
	createNamespace(t, names.SystemNamespace)
	createNamespace(t, ns)
	schedBin := buildBinary(t, "propel-scheduler")
	estBin := buildBinary(t, "propel-scheduler-estimator")
	cmIP, schedIP, estIP := podIPs()
	pki := t.TempDir()
	stockPKI(t, pki)
	member1 := env.Member("member1")
	paths := map[string]string{
		"/etc/karmada/config/karmada.config": env.ControllerManagerKubeconfig(),
		"/etc/karmada/pki":                   pki,
		"/etc/member1-kubeconfig":            member1.Kubeconfig,
	}

	cm, err := localenv.StartProcess("stock-controller-manager", cmBin, localize(stockControllerManagerArgs, paths, cmIP), env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cm.Stop)
	sched, err := localenv.StartProcess("stock-scheduler", schedBin, localize(stockSchedulerArgs, paths, schedIP), env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Stop)
	// In a pod the estimator's gRPC port (10352 on every address) is its
	// own; here the processes share the host, so it listens on its
	// stand-in pod IP only.
	est, err := localenv.StartProcess("stock-scheduler-estimator", estBin, append(localize(stockEstimatorArgs, paths, estIP), "--bind-address="+estIP), env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(est.Stop)
	all := []*localenv.Process{cm, sched, est}

	harness.Eventually(t, "every /healthz answers 200 on Karmada's ports", func(ctx context.Context) (bool, error) {
		for _, url := range []string{"http://" + cmIP + ":10357/healthz", "http://" + schedIP + ":10351/healthz", "http://" + estIP + ":10351/healthz"} {
			if ok, err := healthy(ctx, url); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(all...), harness.LogsIn(env.LogDir))
	harness.Eventually(t, "Leases karmada-controller-manager and karmada-scheduler held", func(ctx context.Context) (bool, error) {
		for _, name := range []string{names.ControllerManagerLease, names.SchedulerLease} {
			lease := &coordinationv1.Lease{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: names.SystemNamespace, Name: name}, lease); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			if ptr.Deref(lease.Spec.HolderIdentity, "") == "" {
				return false, nil
			}
		}
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(all...), harness.LogsIn(env.LogDir))
	waitClustersReady(t, all...)
	createPolicy(t, ns, "stock")
	deployed := createDeployments(t, ns, "stock", "stock", 1)
	expectPropagated(t, ns, deployed, 3*time.Minute, all...)

	for addr, want := range map[string]string{
		cmIP + ":8080":    "controller_runtime_reconcile_total",
		schedIP + ":8080": "leader_election_master_status",
		estIP + ":8080":   "", // only its RPC counter, empty until called
	} {
		body, err := harness.ScrapeMetrics(context.Background(), addr)
		if err != nil {
			t.Errorf("plain HTTP scrape of Karmada's metrics address: %v", err)
		} else if !strings.Contains(body, want) {
			t.Errorf("metrics at %s lack %s:\n%.2000s", addr, want, body)
		}
	}
	// The stock --controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer
	// turns on the two controllers that are off by default, and not the
	// in-process scheduler.
	for _, name := range []string{"hpa-scale-target-marker", "deployment-replicas-syncer"} {
		if !jsonLog(t, cm.LogPath, "Starting Controller", name) {
			t.Errorf("%s: the stock --controllers did not start %s", cm.LogPath, name)
		}
	}
	if jsonLog(t, cm.LogPath, "Starting Controller", "scheduler-default-scheduler") {
		t.Errorf("%s: the stock --controllers started the in-process scheduler beside propel-scheduler", cm.LogPath)
	}
	for _, p := range all {
		// AllAlpha turns SchedulingOvercommitProtection on, which Propel
		// implements: no start-up warning names it.
		if jsonLog(t, p.LogPath, "SchedulingOvercommitProtection", "no effect") {
			t.Errorf("%s: a warning says the implemented SchedulingOvercommitProtection gate has no effect", p.LogPath)
		}
		if !jsonLog(t, p.LogPath, `"starting"`, `"version"`) {
			t.Errorf("%s: the start-up log does not name the version", p.LogPath)
		}
	}
}
