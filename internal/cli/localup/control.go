package localup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/propel-mc/propel/internal/cli/localenv"
)

// The control socket lets another process (propelctl demo) stop and start a
// member's API server. The processes belong to local-up (they die with it),
// so only local-up can restart one with its original flags; the socket is a
// unix socket in the state directory, reachable only by its owner.

const controlSocket = "local-up.sock"

// memberActionTimeout bounds a start: kube-apiserver must answer /readyz.
const memberActionTimeout = 2 * time.Minute

// serveControl answers POST /members/<name>/apiserver/stop and .../start
// until ctx ends.
func serveControl(ctx context.Context, dir string, env *localenv.Environment) (func(), error) {
	path := filepath.Join(dir, controlSocket)
	_ = os.Remove(path) // left by a local-up that was killed
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("POST /members/{name}/apiserver/{action}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		name, action := r.PathValue("name"), r.PathValue("action")
		m := env.Member(name)
		if m == nil {
			http.Error(w, fmt.Sprintf("no member %q", name), http.StatusNotFound)
			return
		}
		running := false
		if m.APIServer.Process != nil {
			exited, _ := m.APIServer.Process.Exited()
			running = !exited
		}
		switch action {
		case "stop":
			if running {
				m.APIServer.Stop()
			}
		case "start":
			if running {
				break
			}
			startCtx, cancel := context.WithTimeout(ctx, memberActionTimeout)
			defer cancel()
			if err := m.APIServer.Start(startCtx); err != nil {
				http.Error(w, fmt.Sprintf("start %s's API server: %v", name, err), http.StatusInternalServerError)
				return
			}
		default:
			http.Error(w, fmt.Sprintf("unknown action %q: want stop or start", action), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%s's API server: %s done\n", name, action)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return func() { _ = srv.Close(); _ = os.Remove(path) }, nil
}

// memberAPIServer asks the local-up running in dir to stop or start a
// member's API server, and waits until it has.
func memberAPIServer(ctx context.Context, dir, member, action string) error {
	path := filepath.Join(dir, controlSocket)
	hc := &http.Client{
		Timeout: memberActionTimeout + 30*time.Second,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		}},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://local-up/members/"+member+"/apiserver/"+action, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%s %s's API server: no local-up control socket at %s (restart `make up` with this version): %w", action, member, path, err)
		}
		return fmt.Errorf("%s %s's API server: %w", action, member, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s's API server: %s", action, member, strings.TrimSpace(string(body)))
	}
	return nil
}
