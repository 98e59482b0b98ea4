// Package harness starts real multi-cluster environments for integration
// and end-to-end tests: a Karmada-style control plane with Propel's CRDs and
// member clusters registered as Cluster objects, built on internal/cli/localenv. It
// builds missing binaries with hack/testbin.sh and stops every process when
// the test ends, also when it fails.
package harness

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/config/crds"
	karmadaapiserver "github.com/propel-mc/propel/config/deploy/karmada-apiserver"
	"github.com/propel-mc/propel/internal/cli/join"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/pkg/apis"
)

// Options chooses the members; the default is DefaultMembers.
type Options struct {
	Members []localenv.MemberOptions
	// NoJoin leaves the members unregistered.
	NoJoin bool
	// NoControlPlaneControllers skips kube-controller-manager (garbage
	// collection) on the control plane.
	NoControlPlaneControllers bool
}

// DefaultMembers is the standard topology: member1 runs real workloads
// (kube-controller-manager, kube-scheduler, kwok); member2 and member3 are
// bare API servers.
func DefaultMembers() []localenv.MemberOptions {
	return []localenv.MemberOptions{
		{Name: "member1", Workloads: true, Region: "region-a", Zone: "zone-a1", Provider: "local"},
		{Name: "member2", Region: "region-b", Zone: "zone-b1", Provider: "local"},
		{Name: "member3", Region: "region-b", Zone: "zone-b2", Provider: "local"},
	}
}

// Env is a running environment with clients for its clusters.
type Env struct {
	*localenv.Environment
	// Client talks to the control plane with Propel's scheme.
	Client client.Client
	// Kube is a typed client of the control plane.
	Kube kubernetes.Interface
}

// MemberClient returns a client for member name.
func (e *Env) MemberClient(name string) (client.Client, error) {
	m := e.Member(name)
	if m == nil {
		return nil, fmt.Errorf("no member %s", name)
	}
	return client.New(m.Config, client.Options{Scheme: apis.Scheme})
}

// Start builds missing binaries and starts an environment under dir.
func Start(ctx context.Context, dir string, opts Options) (*Env, error) {
	members := opts.Members
	if members == nil {
		members = DefaultMembers()
	}
	withWorkloads := !opts.NoControlPlaneControllers
	for _, m := range members {
		withWorkloads = withWorkloads || m.Workloads
	}
	if err := EnsureBinaries(withWorkloads); err != nil {
		return nil, err
	}
	all, err := crds.All()
	if err != nil {
		return nil, err
	}
	rbac, err := karmadaapiserver.Objects()
	if err != nil {
		return nil, err
	}
	le, err := localenv.Start(ctx, localenv.Options{
		Dir: dir, CRDs: all, Members: members, ControlPlaneControllers: !opts.NoControlPlaneControllers,
		// Propel's identity: the shipped ServiceAccount, bound to the
		// generated role (Env.ControllerManager).
		ControllerManager: &localenv.IdentityOptions{User: karmadaapiserver.UserName, Objects: rbac},
	})
	if err != nil {
		return nil, err
	}
	env := &Env{Environment: le}
	if env.Client, err = client.New(le.ControlPlane.Config, client.Options{Scheme: apis.Scheme}); err != nil {
		le.Stop()
		return nil, err
	}
	if env.Kube, err = kubernetes.NewForConfig(le.ControlPlane.Config); err != nil {
		le.Stop()
		return nil, err
	}
	if !opts.NoJoin {
		for _, m := range le.Members {
			o := m.Options
			var zones []string
			if o.Zone != "" {
				zones = []string{o.Zone}
			}
			jo := join.Options{Name: o.Name, Provider: o.Provider, Region: o.Region, Zones: zones,
				// The suites' Clusters have no unified auth, so that the
				// Works they count are their own.
				NoImpersonator: true}
			if !o.Workloads {
				// A bare API server has no token controller to fill in
				// a ServiceAccount token Secret.
				jo.ExpiringTokenTTL = 24 * time.Hour
			}
			if _, err := join.Join(ctx, le.ControlPlane.Config, m.Config, jo); err != nil {
				le.Stop()
				return nil, err
			}
		}
	}
	return env, nil
}

// StartT starts an environment for one test and stops it when the test ends.
func StartT(t testing.TB, opts Options) *Env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	env, err := Start(ctx, t.TempDir(), opts)
	if err != nil {
		t.Fatalf("start environment: %v", err)
	}
	t.Cleanup(env.Stop)
	return env
}

// Main runs a test package's tests against one shared environment, so the
// API servers start once per package. Use it from TestMain:
//
//	func TestMain(m *testing.M) { harness.Main(m, harness.Options{}, &env) }
//
// Each start function runs once the environment is up (for example to start
// a controller manager); it is stopped with the environment. With -run '^$'
// (benchmarks only, as make bench runs them) no environment starts: the
// package's benchmarks do not need one.
func Main(m *testing.M, opts Options, env **Env, start ...func(context.Context, *Env) error) {
	flag.Parse()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "^$" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "propel-env-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	e, err := Start(ctx, dir, opts)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "start environment: %v\n", err)
		os.Exit(1)
	}
	*env = e
	runCtx, stopRun := context.WithCancel(context.Background())
	for _, f := range start {
		if err := f(runCtx, e); err != nil {
			fmt.Fprintf(os.Stderr, "start: %v\n", err)
			stopRun()
			e.Stop()
			os.Exit(1)
		}
	}
	code := m.Run()
	stopRun()
	e.Stop()
	if code == 0 {
		os.RemoveAll(dir)
	} else {
		fmt.Fprintf(os.Stderr, "environment logs kept in %s\n", e.LogDir)
	}
	os.Exit(code)
}

// EnsureBinaries runs hack/testbin.sh when binaries are missing, streaming
// its progress to stderr.
func EnsureBinaries(withWorkloads bool) error {
	missing := localenv.MissingBinaries(withWorkloads)
	if len(missing) == 0 {
		return nil
	}
	script := filepath.Join(RepoRoot(), "hack", "testbin.sh")
	cmd := exec.Command(script, missing...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), "PROPEL_TESTBIN_DIR="+localenv.BinDir())
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build test binaries %s with %s: %w", strings.Join(missing, ", "), script, err)
	}
	return nil
}

// RepoRoot is the checkout this package was compiled from.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedDir is ../shared beside the checkout, where the Karmada reference
// material lives; "" when it is absent.
func SharedDir() string {
	d := filepath.Join(RepoRoot(), "..", "shared")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

// MemberNames lists the members' names in the order they were started.
func (e *Env) MemberNames() []string {
	out := make([]string, 0, len(e.Members))
	for _, m := range e.Members {
		out = append(out, m.Options.Name)
	}
	return out
}

// UniqueName appends a number unique within a test run to prefix, so that
// tests sharing one environment never collide.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1_000_000, uniqueNames.Add(1))
}

var uniqueNames atomic.Int64

// RunManager starts a controller-runtime manager on cfg with Propel's
// scheme and no metrics server, after setup has added the controllers
// under test, and returns once its caches have synced. It stops when ctx
// ends. Controller names may repeat, since each test may run its own
// manager with the same controllers.
func RunManager(ctx context.Context, cfg *rest.Config, setup func(ctrl.Manager) error) (ctrl.Manager, error) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	if err := setup(mgr); err != nil {
		return nil, err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager stopped:", err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("manager caches did not sync")
	}
	return mgr, nil
}
