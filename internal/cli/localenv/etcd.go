package localenv

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
)

// Etcd is the single etcd every API server of an environment stores into,
// each under its own --etcd-prefix.
type Etcd struct {
	URL     string
	Process *Process
}

func startEtcd(ctx context.Context, progress *Progress, dir, logDir string, clientPort int) (*Etcd, error) {
	var err error
	if clientPort == 0 {
		if clientPort, err = FreePort(); err != nil {
			return nil, err
		}
	}
	peerPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	progress.Starting("etcd")
	proc, err := StartProcess("etcd", bin("etcd"), []string{
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + url, "--advertise-client-urls=" + url,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=default=" + peer,
		"--unsafe-no-fsync=true", // test data: speed over durability
		"--quota-backend-bytes=8589934592",
		"--log-level=warn",
	}, logDir)
	if err != nil {
		return nil, err
	}
	e := &Etcd{URL: url, Process: proc}
	err = proc.WaitUntil(ctx, "etcd health", func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("health: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		proc.Stop()
		return nil, err
	}
	progress.ReadyAt("etcd", url)
	return e, nil
}
