package localenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Options configures an environment.
type Options struct {
	// Dir holds PKI, etcd data, kubeconfigs and logs. Reusing a Dir reuses
	// the state of a previous run.
	Dir string
	// CRDs are installed into the control plane before Start returns.
	CRDs    []*apiextensionsv1.CustomResourceDefinition
	Members []MemberOptions
	// EtcdPort and ControlPlanePort pin ports; 0 picks free ones.
	EtcdPort, ControlPlanePort int
	// ControlPlaneControllers runs kube-controller-manager against the
	// control plane with only the controllers Karmada runs there (garbage
	// collector, namespace, ...): it deletes a binding when its template
	// goes. No workload controllers: templates must not get pods.
	ControlPlaneControllers bool
	// ControllerManager, when set, is the identity Propel runs as
	// (Environment.ControllerManager): its objects are applied once the
	// CRDs are installed.
	ControllerManager *IdentityOptions
	// Progress, when set, reports each process as it starts and when it
	// is ready.
	Progress *Progress
}

// Environment is a running control plane and its members.
type Environment struct {
	Dir          string
	LogDir       string
	PKI          *PKI
	Etcd         *Etcd
	ControlPlane *APIServer
	// ControlPlaneControllerManager runs with ControlPlaneControllers.
	ControlPlaneControllerManager *Process
	// ControllerManager is Propel's identity with Options.ControllerManager
	// (nil without).
	ControllerManager *Identity
	Members           []*Member
}

// Start brings up etcd, the control plane (with CRDs) and the members. On
// error everything already started is stopped and the error names the
// failing process and its log.
func Start(ctx context.Context, opts Options) (env *Environment, err error) {
	if opts.Dir == "" {
		return nil, errors.New("localenv: Options.Dir is required")
	}
	env = &Environment{Dir: opts.Dir, LogDir: filepath.Join(opts.Dir, "logs")}
	if err := os.MkdirAll(env.LogDir, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			env.Stop()
			env = nil
		}
	}()
	if env.PKI, err = LoadOrCreatePKI(filepath.Join(opts.Dir, "pki")); err != nil {
		return env, fmt.Errorf("pki: %w", err)
	}
	if env.Etcd, err = startEtcd(ctx, opts.Progress, opts.Dir, env.LogDir, opts.EtcdPort); err != nil {
		return env, err
	}
	// The members need only etcd: they start while the control plane
	// starts and installs its CRDs, which saves the slower of the two.
	env.Members = make([]*Member, len(opts.Members))
	errs := make([]error, len(opts.Members)+1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		forEachBounded(len(opts.Members), memberStartsAtOnce, func(i int) {
			env.Members[i], errs[i] = startMember(ctx, opts.Progress, opts.Members[i], env.PKI, env.Etcd, opts.Dir, env.LogDir)
		})
	}()
	errs[len(opts.Members)] = env.startControlPlane(ctx, opts)
	<-done
	return env, errors.Join(errs...)
}

// memberStartsAtOnce bounds the member API servers starting at the same
// time: each start is CPU-heavy (storage, post-start hooks, OpenAPI), and
// tens of them at once on a small machine time out reaching etcd ("error
// creating storage factory: context deadline exceeded") or in their
// post-start hooks, where a few at a time start in about the same total.
const memberStartsAtOnce = 4

// forEachBounded calls fn(0..n-1) with at most limit calls running at once
// and returns when all have returned.
func forEachBounded(n, limit int, fn func(i int)) {
	slots := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			fn(i)
		})
	}
	wg.Wait()
}

// startControlPlane starts the control plane's API server, installs the
// CRDs, Propel's identity and, with ControlPlaneControllers, its
// kube-controller-manager.
func (env *Environment) startControlPlane(ctx context.Context, opts Options) (err error) {
	if env.ControlPlane, err = startAPIServer(ctx, opts.Progress, "karmada", env.PKI, env.Etcd, opts.Dir, env.LogDir, opts.ControlPlanePort, controlPlaneArgs, nil); err != nil {
		return err
	}
	since := opts.Progress.Now()
	if err = InstallCRDs(ctx, env.ControlPlane.Config, opts.CRDs); err != nil {
		return err
	}
	opts.Progress.Step(fmt.Sprintf("karmada: %d CRDs installed", len(opts.CRDs)), since)
	if id := opts.ControllerManager; id != nil {
		if err = ApplyObjects(ctx, env.ControlPlane.Config, id.Objects); err != nil {
			return fmt.Errorf("controller manager identity: %w", err)
		}
		if env.ControllerManager, err = env.ControlPlane.NewIdentity(env.PKI, opts.Dir, "propel-controller-manager", id.User); err != nil {
			return err
		}
	}
	if opts.ControlPlaneControllers {
		opts.Progress.Starting("karmada-controller-manager")
		if env.ControlPlaneControllerManager, err = startControlPlaneControllers(env.ControlPlane, env.PKI); err != nil {
			return err
		}
	}
	return nil
}

// Member returns the member called name, or nil.
func (e *Environment) Member(name string) *Member {
	for _, m := range e.Members {
		if m != nil && m.Options.Name == name {
			return m
		}
	}
	return nil
}

// Stop ends every process: members, then the control plane, then etcd.
func (e *Environment) Stop() {
	if e == nil {
		return
	}
	var wg sync.WaitGroup
	for _, m := range e.Members {
		if m != nil {
			wg.Add(1)
			go func() { defer wg.Done(); m.Stop() }()
		}
	}
	wg.Wait()
	e.ControlPlaneControllerManager.Stop()
	if e.ControlPlane != nil {
		e.ControlPlane.Stop()
	}
	if e.Etcd != nil {
		e.Etcd.Process.Stop()
	}
}
