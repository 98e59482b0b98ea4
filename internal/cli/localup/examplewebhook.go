package localup

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/config/samples"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/pkg/apis"
)

// exampleWebhookBinary is cmd/interpreter-webhook-example, the resource
// interpreter webhook of the sample Workload kind (workload.example.io),
// which Karmada's suite expects registered as its own example is.
const exampleWebhookBinary = "interpreter-webhook-example"

// startExampleWebhook runs interpreter-webhook-example, installs the
// Workload CRD into the control plane and every member, and registers the
// webhook (ResourceInterpreterWebhookConfiguration "examples"). Without the
// binary it says how to get it and returns nil: the rest of local-up does
// not need it. url is where it serves.
func startExampleWebhook(ctx context.Context, o Options, progress *localenv.Progress, env *localenv.Environment) (p *localenv.Process, url string, err error) {
	bin, err := siblingBinary(exampleWebhookBinary)
	if err != nil {
		fmt.Fprintf(o.Out, "local-up: %s not found next to propelctl or in PATH (`make up` builds it): the Workload example webhook is not registered\n", exampleWebhookBinary)
		return nil, "", nil
	}
	crd, err := workloadCRD()
	if err != nil {
		return nil, "", err
	}
	for _, cfg := range append([]*localenv.APIServer{env.ControlPlane}, membersOf(env)...) {
		if err := localenv.InstallCRDs(ctx, cfg.Config, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
			return nil, "", fmt.Errorf("%s: %w", cfg.Name, err)
		}
	}
	cert, err := env.PKI.IssueServing(exampleWebhookBinary)
	if err != nil {
		return nil, "", err
	}
	port, err := localenv.FreePort()
	if err != nil {
		return nil, "", err
	}
	progress.Starting(exampleWebhookBinary)
	p, err = localenv.StartProcess(exampleWebhookBinary, bin, []string{
		"--bind-address=127.0.0.1", "--port=" + strconv.Itoa(port), "--cert-file=" + cert.CertFile, "--key-file=" + cert.KeyFile,
	}, env.LogDir)
	if err != nil {
		return nil, "", err
	}
	if err := waitListening(ctx, progress, p, port); err != nil {
		p.Stop()
		return nil, "", err
	}
	c, err := client.New(env.ControlPlane.Config, client.Options{Scheme: apis.Scheme})
	if err != nil {
		p.Stop()
		return nil, "", err
	}
	fill := strings.NewReplacer("WEBHOOK_ADDRESS", "127.0.0.1:"+strconv.Itoa(port), "CA_BUNDLE", base64.StdEncoding.EncodeToString(env.PKI.CAPEM))
	obj, err := sampleObject(exampleWebhookConfigurationSample, fill)
	if err == nil {
		err = applyObject(ctx, c, obj)
	}
	if err != nil {
		p.Stop()
		return nil, "", err
	}
	return p, fmt.Sprintf("https://127.0.0.1:%d", port), nil
}

// exampleWebhookConfigurationSample registers the example webhook; its
// WEBHOOK_ADDRESS and CA_BUNDLE are filled in.
const exampleWebhookConfigurationSample = "workload/webhook-configuration.yaml"

// workloadCRD is the sample Workload CRD (workload.example.io/v1alpha1).
func workloadCRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := samples.FS.ReadFile("workload/crd.yaml")
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		return nil, fmt.Errorf("workload/crd.yaml: %w", err)
	}
	return crd, nil
}

func membersOf(env *localenv.Environment) []*localenv.APIServer {
	out := make([]*localenv.APIServer, 0, len(env.Members))
	for _, m := range env.Members {
		out = append(out, m.APIServer)
	}
	return out
}
