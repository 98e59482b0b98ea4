package localenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// AdminUser is the user of every API server's admin kubeconfig (in the
// group system:masters), as Karmada's installers name theirs system:admin.
const AdminUser = "propel-admin"

// APIServer is one kube-apiserver: the control plane's or a member's.
type APIServer struct {
	Name string
	// URL is https://127.0.0.1:<port>.
	URL string
	// CAPEM verifies URL's serving certificate.
	CAPEM []byte
	// Kubeconfig is a file with admin (system:masters) credentials.
	Kubeconfig string
	// Config is the admin rest.Config.
	Config  *rest.Config
	Process *Process

	args     []string
	env      []string
	logDir   string
	progress *Progress
}

// controlPlaneArgs make the control plane's API server admit and authorize
// requests as karmada-apiserver does: without the ServiceAccount admission
// plugin (no controller creates default ServiceAccounts there, so Pods and
// pod templates are accepted as they are) and without
// StorageObjectInUseProtection, with bootstrap tokens and the Node
// authorizer (what karmada-agent's bootstrap and pull-mode members use).
var controlPlaneArgs = []string{
	"--authorization-mode=Node,RBAC",
	"--enable-bootstrap-token-auth=true",
	"--disable-admission-plugins=StorageObjectInUseProtection,ServiceAccount",
}

// memberArgs keep a member's API server a plain cluster's (kind's
// defaults): every default admission plugin on.
var memberArgs = []string{"--authorization-mode=Node,RBAC"}

// lowMemoryMemberArgs trade a member API server's caches for memory, so
// that tens of members fit on one machine (MemberOptions.LowMemory): no
// watch cache (lists and watches are served from etcd, which the members
// share), fewer requests in flight (each holds its buffers) and a lower
// event TTL. Admission stays as a plain cluster's.
var lowMemoryMemberArgs = []string{
	"--watch-cache=false",
	"--max-requests-inflight=100",
	"--max-mutating-requests-inflight=50",
	"--event-ttl=10m",
	"--profiling=false",
}

// lowMemoryMemberEnv makes the member API server's Go runtime collect
// garbage earlier: GOGC=50 keeps the heap at 1.5x live instead of 2x, and
// the soft limit makes the runtime collect harder before growing past it.
var lowMemoryMemberEnv = []string{"GOGC=50", "GOMEMLIMIT=256MiB"}

func startAPIServer(ctx context.Context, progress *Progress, name string, pki *PKI, etcd *Etcd, dir, logDir string, port int, extraArgs, env []string) (*APIServer, error) {
	var err error
	if port == 0 {
		if port, err = FreePort(); err != nil {
			return nil, err
		}
	}
	serving, err := pki.IssueServing(name+"-apiserver", "kubernetes", "kubernetes.default", "kubernetes.default.svc")
	if err != nil {
		return nil, err
	}
	admin, err := pki.IssueClient("admin", AdminUser, "system:masters")
	if err != nil {
		return nil, err
	}
	// The aggregation layer's client identity, for API servers such as a
	// member's metrics-server.
	frontProxy, err := pki.IssueClient(name+"-front-proxy-client", "front-proxy-client")
	if err != nil {
		return nil, err
	}
	saKey, saPub, err := pki.ServiceAccountKey()
	if err != nil {
		return nil, err
	}
	s := &APIServer{
		Name:       name,
		URL:        fmt.Sprintf("https://127.0.0.1:%d", port),
		CAPEM:      pki.CAPEM,
		Kubeconfig: filepath.Join(dir, name+".kubeconfig"),
		logDir:     logDir,
		env:        env,
		progress:   progress,
		args: []string{
			"--etcd-servers=" + etcd.URL,
			"--etcd-prefix=/" + name,
			"--bind-address=127.0.0.1",
			"--advertise-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(port),
			"--tls-cert-file=" + serving.CertFile,
			"--tls-private-key-file=" + serving.KeyFile,
			"--client-ca-file=" + filepath.Join(pki.Dir, "ca.crt"),
			"--requestheader-client-ca-file=" + filepath.Join(pki.Dir, "ca.crt"),
			"--requestheader-allowed-names=front-proxy-client",
			"--requestheader-username-headers=X-Remote-User",
			"--requestheader-group-headers=X-Remote-Group",
			"--requestheader-extra-headers-prefix=X-Remote-Extra-",
			"--proxy-client-cert-file=" + frontProxy.CertFile,
			"--proxy-client-key-file=" + frontProxy.KeyFile,
			"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
			"--service-account-key-file=" + saPub,
			"--service-account-signing-key-file=" + saKey,
			"--service-cluster-ip-range=10.96.0.0/16",
			"--allow-privileged=true",
			"--enable-priority-and-fairness=false",
			"--endpoint-reconciler-type=none",
			"--v=1",
		},
	}
	s.args = append(s.args, extraArgs...)
	s.Config = &rest.Config{
		Host:            s.URL,
		TLSClientConfig: rest.TLSClientConfig{CAData: pki.CAPEM, CertData: admin.CertPEM, KeyData: admin.KeyPEM},
		QPS:             200,
		Burst:           400,
	}
	if err := writeKubeconfig(s.Kubeconfig, name, s.URL, pki.CAPEM, admin); err != nil {
		return nil, err
	}
	return s, s.Start(ctx)
}

// Start (re)starts the API server process with its original flags and waits
// for /readyz; tests use Stop and Start to take a member down and back.
func (s *APIServer) Start(ctx context.Context) error {
	return retryEarlyExit(startAttempts, func() error { return s.startOnce(ctx) })
}

// startAttempts is how often Start starts the process when it exits before
// it is ready: on a saturated machine kube-apiserver exits now and then
// from a post-start hook that timed out ("not yet ready to handle
// request"); the same flags on the same etcd then start.
const startAttempts = 2

// retryEarlyExit runs start up to attempts times while it fails with
// ErrExitedEarly; any other error, and the last attempt's, is returned.
func retryEarlyExit(attempts int, start func() error) error {
	var err error
	for range attempts {
		if err = start(); !errors.Is(err, ErrExitedEarly) {
			return err
		}
	}
	return err
}

func (s *APIServer) startOnce(ctx context.Context) error {
	s.progress.Starting(s.Name + "-apiserver")
	proc, err := StartProcessWithEnv(s.Name+"-apiserver", bin("kube-apiserver"), s.args, s.env, s.logDir)
	if err != nil {
		return err
	}
	s.Process = proc
	client, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		return err
	}
	err = proc.WaitUntil(ctx, "kube-apiserver /readyz", func(ctx context.Context) error {
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("%v: %s", err, body)
		}
		return nil
	})
	if err != nil {
		proc.Stop()
		return err
	}
	s.progress.ReadyAt(s.Name+"-apiserver", s.URL)
	return nil
}

// Stop ends the API server process; its data stays in etcd.
func (s *APIServer) Stop() { s.Process.Stop() }

func writeKubeconfig(path, name, server string, caPEM []byte, admin *CertPair) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[name+"-admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: admin.CertPEM, ClientKeyData: admin.KeyPEM}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name + "-admin"}
	cfg.CurrentContext = name
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*cfg, path)
}
