package localup

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/propel-mc/propel/internal/cli/localenv"
)

// siblingBinary finds one of Propel's commands next to the running propelctl
// (where `make up` and `make demo` build them), else in PATH.
func siblingBinary(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		bin := filepath.Join(filepath.Dir(self), name)
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}
	return exec.LookPath(name)
}

// waitListening waits until p accepts connections on 127.0.0.1:port and
// reports it ready; the error names p and quotes its log when p exits
// first or ctx ends.
func waitListening(ctx context.Context, progress *localenv.Progress, p *localenv.Process, port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	err := p.WaitUntil(ctx, "it to listen on "+addr, func(ctx context.Context) error {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return conn.Close()
	})
	if err != nil {
		return err
	}
	progress.ReadyAt(p.Name, addr)
	return nil
}

// stopAll stops procs, the last started first.
func stopAll(procs []*localenv.Process) {
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop()
	}
}

// apiServiceTimeout bounds the wait for an aggregated API to become
// Available after its server listens (the aggregator's discovery check
// runs every few seconds).
const apiServiceTimeout = 2 * time.Minute

// waitAPIServicesAvailable waits, at most apiServiceTimeout, until the
// APIService of each of apis served by p is Available, so that what
// follows (joining members, which writes Clusters) does not meet "the
// server is currently unable to handle the request". The error names the
// APIService, its condition and p's log tail.
func waitAPIServicesAvailable(ctx context.Context, progress *localenv.Progress, p *localenv.Process, dyn dynamic.Interface, apis []localenv.AggregatedAPI) error {
	ctx, cancel := context.WithTimeout(ctx, apiServiceTimeout)
	defer cancel()
	for _, api := range apis {
		name := api.APIServiceName()
		since := progress.Now()
		if err := p.WaitUntil(ctx, "APIService "+name+" to be Available", func(ctx context.Context) error {
			return localenv.APIServiceAvailable(ctx, dyn, name)
		}); err != nil {
			return err
		}
		progress.Step("APIService "+name+" available", since)
	}
	return nil
}
