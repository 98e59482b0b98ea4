package localup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
)

// karmadaComponent is one of Karmada's components that Propel does not
// replace: it runs beside Propel when its binary is in --karmada-bin-dir,
// serving HTTPS on loopback with a certificate of the environment's CA.
type karmadaComponent struct {
	name string
	// args are its flags, given the paths and ports local-up chose.
	args func(c componentEnv) []string
	// apis are the API group versions it serves through the control
	// plane's aggregation layer (its Service is called as the component,
	// in karmada-system, as Karmada's installers name it).
	apis []localenv.AggregatedAPI
	// servesClusters: it serves cluster.karmada.io itself, so the Cluster
	// CRD must not be installed (the CRD's own APIService would take the
	// group back).
	servesClusters bool
	// register runs once it listens (the webhook's configurations).
	register func(ctx context.Context, c componentEnv) error
}

// componentEnv is what a component's flags and registration need.
type componentEnv struct {
	env          *localenv.Environment
	cert         *localenv.CertPair
	port         int
	featureGates string
}

// etcdPrefix is the control plane's etcd prefix (localenv names it after
// the control plane's API server): the aggregated API servers store their
// objects beside karmada-apiserver's, as in Karmada.
const etcdPrefix = "/karmada"

// karmadaComponents are the components --karmada-bin-dir may hold, in the
// order they start.
var karmadaComponents = []karmadaComponent{
	{
		name: "karmada-aggregated-apiserver",
		args: func(c componentEnv) []string {
			return append(genericServerArgs(c), "--etcd-servers="+c.env.Etcd.URL, "--etcd-prefix="+etcdPrefix)
		},
		apis:           []localenv.AggregatedAPI{{Group: "cluster.karmada.io", Version: "v1alpha1", GroupPriorityMinimum: 2000, VersionPriority: 10}},
		servesClusters: true,
	},
	{
		name: "karmada-webhook",
		args: func(c componentEnv) []string {
			return []string{
				"--kubeconfig=" + c.env.ControlPlane.Kubeconfig,
				"--bind-address=127.0.0.1",
				"--secure-port=" + strconv.Itoa(c.port),
				"--cert-dir=" + filepath.Dir(c.cert.CertFile),
				"--tls-cert-file-name=" + filepath.Base(c.cert.CertFile),
				"--tls-private-key-file-name=" + filepath.Base(c.cert.KeyFile),
				"--metrics-bind-address=0",
				"--health-probe-bind-address=0",
				"--feature-gates=" + c.featureGates,
				"--allow-no-execute-taint-policy=true",
			}
		},
		register: registerKarmadaWebhook,
	},
	{
		name: "karmada-search",
		args: func(c componentEnv) []string {
			return append(genericServerArgs(c), "--etcd-servers="+c.env.Etcd.URL, "--etcd-prefix="+etcdPrefix)
		},
		apis: []localenv.AggregatedAPI{{Group: "search.karmada.io", Version: "v1alpha1", GroupPriorityMinimum: 2000, VersionPriority: 10}},
	},
	{
		name: "karmada-metrics-adapter",
		args: func(c componentEnv) []string {
			return append(genericServerArgs(c), "--client-ca-file="+filepath.Join(c.env.PKI.Dir, "ca.crt"), "--metrics-bind-address=0")
		},
		apis: []localenv.AggregatedAPI{
			{Group: "metrics.k8s.io", Version: "v1beta1", GroupPriorityMinimum: 2000, VersionPriority: 10},
			{Group: "custom.metrics.k8s.io", Version: "v1beta2", GroupPriorityMinimum: 100, VersionPriority: 200},
			{Group: "custom.metrics.k8s.io", Version: "v1beta1", GroupPriorityMinimum: 100, VersionPriority: 200},
		},
	},
}

// genericServerArgs are the flags of a Kubernetes-style aggregated API
// server: the control plane for delegated authentication and
// authorization, and its serving certificate on loopback.
func genericServerArgs(c componentEnv) []string {
	kubeconfig := c.env.ControlPlane.Kubeconfig
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(c.port),
		"--tls-cert-file=" + c.cert.CertFile,
		"--tls-private-key-file=" + c.cert.KeyFile,
	}
}

// presentKarmadaComponents lists the components whose binaries are in dir.
// A dir that is set but missing, or that holds none of them, is an error:
// the user asked for Karmada's components and would get none.
func presentKarmadaComponents(dir string) ([]karmadaComponent, error) {
	if dir == "" {
		return nil, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("--karmada-bin-dir: %w", err)
	}
	var out []karmadaComponent
	var known []string
	for _, c := range karmadaComponents {
		known = append(known, c.name)
		if info, err := os.Stat(filepath.Join(dir, c.name)); err == nil && !info.IsDir() {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--karmada-bin-dir %s holds none of %v", dir, known)
	}
	return out, nil
}

// withoutClusterCRD drops the Cluster CRD when one of components serves
// cluster.karmada.io itself.
func withoutClusterCRD(crds []*apiextensionsv1.CustomResourceDefinition, components []karmadaComponent) []*apiextensionsv1.CustomResourceDefinition {
	if !servesClusters(components) {
		return crds
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(crds))
	for _, crd := range crds {
		if crd.Name != clusterCRDName {
			out = append(out, crd)
		}
	}
	return out
}

const clusterCRDName = "clusters.cluster.karmada.io"

func servesClusters(components []karmadaComponent) bool {
	for _, c := range components {
		if c.servesClusters {
			return true
		}
	}
	return false
}

// startKarmadaComponents starts components from dir, waits until each
// listens, and registers what it serves. On error the ones already started
// are stopped.
func startKarmadaComponents(ctx context.Context, o Options, progress *localenv.Progress, env *localenv.Environment, components []karmadaComponent, ep *Endpoints) (procs []*localenv.Process, err error) {
	defer func() {
		if err != nil {
			for _, p := range procs {
				p.Stop()
			}
			procs = nil
		}
	}()
	for _, comp := range components {
		c := componentEnv{env: env, featureGates: FeatureGates}
		if c.cert, err = env.PKI.IssueServing(comp.name, comp.name+"."+names.SystemNamespace+".svc"); err != nil {
			return procs, err
		}
		if c.port, err = localenv.FreePort(); err != nil {
			return procs, err
		}
		progress.Starting(comp.name)
		p, err := localenv.StartProcess(comp.name, filepath.Join(o.KarmadaBinDir, comp.name), comp.args(c), env.LogDir)
		if err != nil {
			return procs, err
		}
		procs = append(procs, p)
		if err := waitListening(ctx, progress, p, c.port); err != nil {
			return procs, err
		}
		for _, api := range comp.apis {
			api.Namespace, api.Service, api.Port = names.SystemNamespace, comp.name, c.port
			if err := localenv.RegisterAggregatedAPI(ctx, env.ControlPlane.Config, api); err != nil {
				return procs, fmt.Errorf("%s: %w", comp.name, err)
			}
		}
		// Members join as soon as the components are up: the Cluster API
		// must be reachable through the aggregator by then.
		if comp.servesClusters {
			dyn, err := dynamic.NewForConfig(env.ControlPlane.Config)
			if err != nil {
				return procs, err
			}
			if err := waitAPIServicesAvailable(ctx, progress, p, dyn, comp.apis); err != nil {
				return procs, err
			}
		}
		if comp.register != nil {
			if err := comp.register(ctx, c); err != nil {
				return procs, fmt.Errorf("%s: %w", comp.name, err)
			}
		}
		ep.Karmada[comp.name] = fmt.Sprintf("https://127.0.0.1:%d", c.port)
	}
	return procs, nil
}

// refuseClusterCRD fails when one of components serves cluster.karmada.io
// but the state holds the Cluster CRD of an earlier local-up without it:
// the CRD's own APIService would take the group back, and deleting the CRD
// would wait for Propel to finalize every Cluster, so only fresh state
// works.
func refuseClusterCRD(ctx context.Context, env *localenv.Environment, components []karmadaComponent) error {
	if !servesClusters(components) {
		return nil
	}
	client, err := apiextensionsclient.NewForConfig(env.ControlPlane.Config)
	if err != nil {
		return err
	}
	_, err = client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, clusterCRDName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("look up CRD %s: %w", clusterCRDName, err)
	}
	return fmt.Errorf("the state in %s has the CRD %s of a local-up without karmada-aggregated-apiserver, which serves Clusters itself: start with --fresh", env.Dir, clusterCRDName)
}

// StartKarmadaWebhook runs karmada-webhook from binDir beside an
// environment local-up did not start (the benchmark's) and registers its
// webhook configurations, as local-up does with --karmada-bin-dir. Karmada's
// own controller manager and scheduler rely on the labels it sets.
func StartKarmadaWebhook(ctx context.Context, env *localenv.Environment, binDir string, progress *localenv.Progress) (*localenv.Process, error) {
	var webhook []karmadaComponent
	for _, c := range karmadaComponents {
		if c.name == "karmada-webhook" {
			webhook = append(webhook, c)
		}
	}
	procs, err := startKarmadaComponents(ctx, Options{KarmadaBinDir: binDir}, progress, env, webhook, &Endpoints{Karmada: map[string]string{}})
	if err != nil {
		return nil, err
	}
	return procs[0], nil
}
