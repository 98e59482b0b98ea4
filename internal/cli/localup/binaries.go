package localup

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

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
