package localenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Process is one running binary of an environment, with its output in a log
// file so that a failure can point the user at it.
type Process struct {
	Name    string
	LogPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// StartProcess runs bin with args, logging to <logDir>/<name>.log. The child
// dies with its parent (Pdeathsig) so an interrupted test or local-up leaves
// nothing running.
func StartProcess(name, bin string, args []string, logDir string) (*Process, error) {
	return StartProcessWithEnv(name, bin, args, nil, logDir)
}

// StartProcessWithEnv is StartProcess with env (KEY=value) added to the
// parent's environment, e.g. a Go runtime's GOGC or GOMEMLIMIT.
func StartProcessWithEnv(name, bin string, args, env []string, logDir string) (*Process, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%s: binary %s is missing (run hack/testbin.sh): %w", name, bin, err)
	}
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: open log: %w", name, err)
	}
	fmt.Fprintf(logFile, "=== %s %s %s\n", time.Now().Format(time.RFC3339), bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("%s: start %s: %w", name, bin, err)
	}
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

// Exited reports whether the process has ended, and why.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.exited:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// running reports whether p was started and has not exited yet.
func (p *Process) running() bool {
	if p == nil || p.cmd.Process == nil {
		return false
	}
	done, _ := p.Exited()
	return !done
}

// Stop terminates the process group: SIGTERM, then SIGKILL after a grace period.
func (p *Process) Stop() {
	if !p.running() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

// Kill ends the process group at once (SIGKILL), as a crash or an OOM kill
// would, and waits until the process has exited.
func (p *Process) Kill() {
	if !p.running() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// WaitUntil polls check until it succeeds, the process exits or ctx ends;
// the error names the process, what it waited for, its log and the log's
// last lines, so that a start that fails or times out says which process
// is stuck and why without opening the log.
func (p *Process) WaitUntil(ctx context.Context, what string, check func(context.Context) error) error {
	var last error
	for {
		if done, err := p.Exited(); done {
			return exitedError{fmt.Sprintf("%s exited while waiting for %s (%v)%s", p.Name, what, err, p.logTail())}
		}
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s is not ready: timed out waiting for %s: %v%s", p.Name, what, last, p.logTail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ErrExitedEarly matches (errors.Is) the error of WaitUntil when the
// process exited before it was ready.
var ErrExitedEarly = errors.New("process exited before it was ready")

type exitedError struct{ text string }

func (e exitedError) Error() string        { return e.text }
func (e exitedError) Is(target error) bool { return target == ErrExitedEarly }

// tailLines and tailBytes bound what an error quotes of a log.
const (
	tailLines = 20
	tailBytes = 16 << 10
)

// logTail is "; last lines of <log>:" and the last tailLines lines of the
// log (at most tailBytes), indented, or "; see <log>" when it cannot be read.
func (p *Process) logTail() string {
	lines, err := TailFile(p.LogPath, tailLines, tailBytes)
	if err != nil || len(lines) == 0 {
		return "; see " + p.LogPath
	}
	var b strings.Builder
	fmt.Fprintf(&b, "; last lines of %s:", p.LogPath)
	for _, l := range lines {
		b.WriteString("\n    " + l)
	}
	return b.String()
}

// TailFile returns the last n lines of the file at path, reading at most
// maxBytes from its end.
func TailFile(path string, n int, maxBytes int64) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := info.Size() - maxBytes
	if off < 0 {
		off = 0
	}
	buf := make([]byte, info.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // the first line is cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil, nil
	}
	return lines, nil
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// PortFree fails with a clear message when a fixed port is taken.
func PortFree(port int) error {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("port %d is in use: %w", port, err)
	}
	return l.Close()
}
