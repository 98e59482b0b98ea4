package localup

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/propel-mc/propel/pkg/localenv"
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

// waitListening waits until p accepts connections on 127.0.0.1:port; the
// error names p's log when p exits first or ctx ends.
func waitListening(ctx context.Context, p *localenv.Process, port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for {
		if done, err := p.Exited(); done {
			return fmt.Errorf("%s exited before listening on %s (%v); see %s", p.Name, addr, err, p.LogPath)
		}
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not listening on %s: %w; see %s", p.Name, addr, ctx.Err(), p.LogPath)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stopAll stops procs, the last started first.
func stopAll(procs []*localenv.Process) {
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop()
	}
}
