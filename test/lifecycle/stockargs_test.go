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

	"github.com/propel-mc/propel/pkg/localenv"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/test/harness"
)

// Karmada's stock arguments (karmada-flags/README.md, from Karmada's
// artifacts/deploy manifests). Only the kubeconfig and certificate paths
// and $(POD_IP) are replaced; the controller manager's --controllers gets
// -scheduler, since Propel's '*' includes the in-process scheduler and
// propel-scheduler runs beside it, as karmada-scheduler does.
var (
	stockControllerManagerArgs = []string{
		"--kubeconfig=/etc/karmada/config/karmada.config",
		"--cluster-status-update-frequency=10s",
		"--controllers=*,-scheduler,hpaScaleTargetMarker,deploymentReplicasSyncer",
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
)

// localize replaces the kubeconfig and PKI paths and $(POD_IP) of args.
func localize(args []string, kubeconfig, pki, podIP string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		a = strings.ReplaceAll(a, "/etc/karmada/config/karmada.config", kubeconfig)
		a = strings.ReplaceAll(a, "/etc/karmada/pki", pki)
		out[i] = strings.ReplaceAll(a, "$(POD_IP)", podIP)
	}
	return out
}

// podIPs are two loopback addresses standing for the two pods' IPs, so
// both processes bind the stock ports (8080 twice) as in two pods.
func podIPs() (string, string) {
	n := os.Getpid()
	base := fmt.Sprintf("127.%d.%d.", 1+n%200, n/200%250)
	return base + "2", base + "3"
}

func buildScheduler(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(env.Dir, "propel-scheduler")
	build := exec.Command("go", "build", "-o", bin, "./cmd/propel-scheduler")
	build.Dir = harness.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build propel-scheduler: %v\n%s", err, out)
	}
	return bin
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

// TestKarmadaStockArguments runs propel-controller-manager and
// propel-scheduler with Karmada's own deployment arguments: both start,
// answer their liveness probes on Karmada's ports, hold Karmada's Leases,
// log JSON (naming the accepted-but-inactive flag, gates and controllers
// once), and together propagate a Deployment.
func TestKarmadaStockArguments(t *testing.T) {
	const ns = "lifecycle-stock"
	createNamespace(t, names.SystemNamespace)
	createNamespace(t, ns)
	schedBin := buildScheduler(t)
	cmIP, schedIP := podIPs()
	pki := t.TempDir()

	cm, err := localenv.StartProcess("stock-controller-manager", cmBin, localize(stockControllerManagerArgs, env.ControllerManagerKubeconfig(), pki, cmIP), env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cm.Stop)
	sched, err := localenv.StartProcess("stock-scheduler", schedBin, localize(stockSchedulerArgs, env.ControllerManagerKubeconfig(), pki, schedIP), env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Stop)
	both := []*localenv.Process{cm, sched}

	harness.Eventually(t, "both /healthz answer 200 on Karmada's ports", func(ctx context.Context) (bool, error) {
		a, err := healthy(ctx, "http://"+cmIP+":10357/healthz")
		if err != nil || !a {
			return false, err
		}
		return healthy(ctx, "http://"+schedIP+":10351/healthz")
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(both...), harness.LogsIn(env.LogDir))
	harness.Eventually(t, "Leases karmada-controller-manager and karmada-scheduler held", func(ctx context.Context) (bool, error) {
		for _, name := range []string{"karmada-controller-manager", "karmada-scheduler"} {
			lease := &coordinationv1.Lease{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: names.SystemNamespace, Name: name}, lease); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			if ptr.Deref(lease.Spec.HolderIdentity, "") == "" {
				return false, nil
			}
		}
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(both...), harness.LogsIn(env.LogDir))
	waitClustersReady(t, both...)
	createPolicy(t, ns, "stock")
	deployed := createDeployments(t, ns, "stock", "stock", 1)
	expectPropagated(t, ns, deployed, 3*time.Minute, both...)

	// The stock --controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer
	// turns on the two controllers that are off by default.
	for _, name := range []string{"hpa-scale-target-marker", "deployment-replicas-syncer"} {
		if !jsonLog(t, cm.LogPath, "Starting Controller", name) {
			t.Errorf("%s: the stock --controllers did not start %s", cm.LogPath, name)
		}
	}
	if !jsonLog(t, cm.LogPath, "WorkloadAffinity", "no effect") {
		t.Errorf("%s: no JSON warning naming the WorkloadAffinity gate", cm.LogPath)
	}
	if !jsonLog(t, sched.LogPath, "WorkloadAffinity", "no effect") {
		t.Errorf("%s: no JSON warning naming the WorkloadAffinity gate", sched.LogPath)
	}
}
