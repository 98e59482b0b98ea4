package localup

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/config/samples"
	"github.com/propel-mc/propel/internal/cli/controlplaneclient"
	"github.com/propel-mc/propel/internal/cli/explain"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// demo holds the clients of a running local-up.
type demo struct {
	dir     string
	out     io.Writer
	cp      client.Client
	cpCfg   *rest.Config
	members map[string]client.Client
	cfgs    map[string]*rest.Config
}

// Demo applies the seed scenarios to a running local-up and prints, per
// cluster, what was propagated, the replicas assigned and ready, and the
// template's aggregated status.
func Demo(ctx context.Context, dir string, out io.Writer) error {
	if dir == "" {
		dir = DefaultDir()
	}
	d := &demo{dir: dir, out: out, members: map[string]client.Client{}, cfgs: map[string]*rest.Config{}}
	// Libraries the demo calls (explain's interpreters) log through
	// controller-runtime: into a file, not over the demo's output.
	logFile, err := os.OpenFile(filepath.Join(dir, "logs", "propelctl-demo.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%w: is `make up` running?", err)
	}
	defer logFile.Close()
	ctrllog.SetLogger(zap.New(zap.WriteTo(logFile)))
	if d.cpCfg, d.cp, err = connect(filepath.Join(dir, "karmada.kubeconfig")); err != nil {
		return fmt.Errorf("%w: is `make up` running?", err)
	}
	for _, m := range []string{"member1", "member2", failoverStopped} {
		if d.cfgs[m], d.members[m], err = connect(filepath.Join(dir, m+".kubeconfig")); err != nil {
			return err
		}
	}
	steps := []struct {
		title string
		run   func(context.Context) error
	}{
		{"(a) nginx, Duplicated to member1 and member2", d.nginxDuplicated},
		{"(a) nginx, Divided / Weighted 1:1", d.nginxWeighted},
		{"(b) Workload CRD interpreted by cmd/interpreter-webhook-example, 2:1", d.workloadWebhook},
		{"(c) the same Workload interpreted by a Lua customization", d.workloadLua},
		{"(d) failover: " + failoverWorkload + " 2:2 on member2 and member3, member3's API server stops and comes back", d.failover},
	}
	for _, s := range steps {
		fmt.Fprintf(out, "\n== %s\n", s.title)
		if err := s.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
	}
	fmt.Fprintf(out, "\n== propelctl trace deployment/nginx -n default --kubeconfig %s\n", filepath.Join(dir, "karmada.kubeconfig"))
	return d.explainNginx(ctx)
}

// explainNginx ends the demo with what `propelctl trace` shows of the
// nginx Deployment.
func (d *demo) explainNginx(ctx context.Context) error {
	cp, err := controlplaneclient.New(d.cpCfg)
	if err != nil {
		return err
	}
	x, err := explain.Live(ctx, cp, "deployment", "nginx", "default", explain.LiveOptions{})
	if err != nil {
		return fmt.Errorf("explain deployment/nginx: %w", err)
	}
	return explain.Text(d.out, x, explain.TextOptions{Now: time.Now()})
}

func connect(kubeconfig string) (*rest.Config, client.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, err
	}
	// Bounded requests: the failover scene polls a member that is down.
	cfg.Timeout = 10 * time.Second
	c, err := client.New(cfg, client.Options{Scheme: apis.Scheme})
	return cfg, c, err
}

// apply creates or updates the object of a sample file.
func (d *demo) apply(ctx context.Context, c client.Client, file string, replace *strings.Replacer) error {
	obj, err := sampleObject(file, replace)
	if err != nil {
		return err
	}
	if err := applyObject(ctx, c, obj); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "applied %s %s\n", obj.GetKind(), obj.GetName())
	return nil
}

// sampleObject reads the object of a sample file, with replace applied to
// its text.
func sampleObject(file string, replace *strings.Replacer) (*unstructured.Unstructured, error) {
	data, err := samples.FS.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if replace != nil {
		data = []byte(replace.Replace(string(data)))
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return obj, nil
}

// applyObject creates obj or updates the existing one.
func applyObject(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	existing := obj.DeepCopy()
	err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing)
	switch {
	case apierrors.IsNotFound(err):
		err = c.Create(ctx, obj)
	case err == nil:
		// Like kubectl apply: keep metadata others added (Propel's
		// permanent ids, finalizers, claims).
		obj.SetResourceVersion(existing.GetResourceVersion())
		obj.SetLabels(merged(existing.GetLabels(), obj.GetLabels()))
		obj.SetAnnotations(merged(existing.GetAnnotations(), obj.GetAnnotations()))
		obj.SetFinalizers(existing.GetFinalizers())
		err = c.Update(ctx, obj)
	}
	if err != nil {
		return fmt.Errorf("apply %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

func merged(base, over map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func (d *demo) nginxDuplicated(ctx context.Context) error {
	for _, f := range []string{"nginx/deployment.yaml", "nginx/propagationpolicy.yaml"} {
		if err := d.apply(ctx, d.cp, f, nil); err != nil {
			return err
		}
	}
	return d.waitAndShow(ctx, "apps/v1", "Deployment", "nginx", map[string]int64{"member1": 2, "member2": 2})
}

func (d *demo) nginxWeighted(ctx context.Context) error {
	if err := d.apply(ctx, d.cp, "nginx-weighted/propagationpolicy.yaml", nil); err != nil {
		return err
	}
	return d.waitAndShow(ctx, "apps/v1", "Deployment", "nginx", map[string]int64{"member1": 1, "member2": 1})
}

func (d *demo) installWorkloadCRD(ctx context.Context) error {
	crd, err := workloadCRD()
	if err != nil {
		return err
	}
	for _, cfg := range append([]*rest.Config{d.cpCfg}, d.cfgs["member1"], d.cfgs["member2"]) {
		if err := localenv.InstallCRDs(ctx, cfg, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
			return err
		}
	}
	// Propel's role claims Workloads only once a user grants it.
	return d.apply(ctx, d.cp, "workload/rbac.yaml", nil)
}

func (d *demo) workloadWebhook(ctx context.Context) error {
	if err := d.installWorkloadCRD(ctx); err != nil {
		return err
	}
	addr, stop, err := d.startWebhook()
	if err != nil {
		return err
	}
	defer stop()
	pki, err := localenv.LoadOrCreatePKI(filepath.Join(d.dir, "pki"))
	if err != nil {
		return err
	}
	fill := strings.NewReplacer("WEBHOOK_ADDRESS", addr, "CA_BUNDLE", base64.StdEncoding.EncodeToString(pki.CAPEM))
	if err := d.apply(ctx, d.cp, exampleWebhookConfigurationSample, fill); err != nil {
		return err
	}
	for _, f := range []string{"workload/propagationpolicy.yaml", "workload/workload.yaml"} {
		if err := d.applyEventually(ctx, f); err != nil {
			return err
		}
	}
	return d.waitAndShow(ctx, "workload.example.io/v1alpha1", "Workload", "nginx", map[string]int64{"member1": 2, "member2": 1})
}

// workloadLua swaps the webhook for the Lua customization: Propel
// re-interprets the claimed Workload when the configuration loads, and the
// result must be the same.
func (d *demo) workloadLua(ctx context.Context) error {
	if err := d.apply(ctx, d.cp, "workload/customization.yaml", nil); err != nil {
		return err
	}
	riwc := &unstructured.Unstructured{}
	riwc.SetAPIVersion("config.karmada.io/v1alpha1")
	riwc.SetKind("ResourceInterpreterWebhookConfiguration")
	riwc.SetName("examples")
	if err := client.IgnoreNotFound(d.cp.Delete(ctx, riwc)); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "deleted ResourceInterpreterWebhookConfiguration examples: the Lua customization answers now")
	return d.waitAndShow(ctx, "workload.example.io/v1alpha1", "Workload", "nginx", map[string]int64{"member1": 2, "member2": 1})
}

// applyEventually retries while the API server learns a new kind.
func (d *demo) applyEventually(ctx context.Context, file string) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		last = d.apply(ctx, d.cp, file, nil)
		return last == nil, nil
	})
	if err != nil {
		return last
	}
	return nil
}

// startWebhook runs interpreter-webhook-example (built next to propelctl by
// `make demo`) with a serving certificate from the environment's CA.
func (d *demo) startWebhook() (string, func(), error) {
	bin, err := siblingBinary(exampleWebhookBinary)
	if err != nil {
		return "", nil, fmt.Errorf("%s not found next to propelctl or in PATH: run `make demo`", exampleWebhookBinary)
	}
	pki, err := localenv.LoadOrCreatePKI(filepath.Join(d.dir, "pki"))
	if err != nil {
		return "", nil, err
	}
	cert, err := pki.IssueServing("interpreter-webhook-example")
	if err != nil {
		return "", nil, err
	}
	port, err := localenv.FreePort()
	if err != nil {
		return "", nil, err
	}
	logPath := filepath.Join(d.dir, "logs", "interpreter-webhook-example.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port), "--cert-file="+cert.CertFile, "--key-file="+cert.KeyFile)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	fmt.Fprintf(d.out, "started interpreter-webhook-example on https://%s (log: %s)\n", addr, logPath)
	return addr, func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }, nil
}

// waitAndShow waits until the members run the wanted replicas, then prints
// the table.
func (d *demo) waitAndShow(ctx context.Context, apiVersion, kind, name string, want map[string]int64) error {
	err := wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		for member, n := range want {
			obj, err := d.memberObject(ctx, member, apiVersion, kind, name)
			if err != nil {
				return false, nil
			}
			if got, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas"); got != n {
				return false, nil
			}
			if kind == "Deployment" {
				if ready, _, _ := unstructured.NestedInt64(obj.Object, "status", "readyReplicas"); ready != n {
					return false, nil
				}
			}
		}
		if kind != "Deployment" {
			return true, nil
		}
		// The template's aggregated status must show what runs.
		tmpl, err := d.templateOf(ctx, apiVersion, kind, name)
		if err != nil {
			return false, nil
		}
		total := int64(0)
		for _, n := range want {
			total += n
		}
		ready, _, _ := unstructured.NestedInt64(tmpl.Object, "status", "readyReplicas")
		return ready == total, nil
	})
	if err != nil {
		return fmt.Errorf("members did not converge to %v: %w (logs in %s)", want, err, filepath.Join(d.dir, "logs"))
	}
	return d.show(ctx, apiVersion, kind, name)
}

func (d *demo) memberObject(ctx context.Context, member, apiVersion, kind, name string) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(apiVersion)
	obj.SetKind(kind)
	return obj, d.members[member].Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, obj)
}

func (d *demo) templateOf(ctx context.Context, apiVersion, kind, name string) (*unstructured.Unstructured, error) {
	tmpl := &unstructured.Unstructured{}
	tmpl.SetAPIVersion(apiVersion)
	tmpl.SetKind(kind)
	return tmpl, d.cp.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, tmpl)
}

func (d *demo) show(ctx context.Context, apiVersion, kind, name string) error {
	tmpl, err := d.templateOf(ctx, apiVersion, kind, name)
	if err != nil {
		return err
	}
	rb := &workv1alpha2.ResourceBinding{}
	if err := d.cp.Get(ctx, client.ObjectKey{Namespace: "default", Name: strings.ToLower(name + "-" + kind)}, rb); err != nil {
		return err
	}
	status, _, _ := unstructured.NestedMap(tmpl.Object, "status")
	statusJSON, _ := yaml.Marshal(status)
	tw := tabwriter.NewWriter(d.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tPROPAGATED\tASSIGNED\tREADY")
	for _, tc := range rb.Spec.Clusters {
		ready := "-"
		if obj, err := d.memberObject(ctx, tc.Name, apiVersion, kind, name); err == nil {
			if r, found, _ := unstructured.NestedInt64(obj.Object, "status", "readyReplicas"); found {
				ready = fmt.Sprint(r)
			} else if kind != "Deployment" {
				ready = "- (no Workload controller in members)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s/%s\t%d\t%s\n", tc.Name, kind, name, tc.Replicas, ready)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	summary := strings.ReplaceAll(strings.TrimSpace(string(statusJSON)), "\n", ", ")
	if len(status) == 0 {
		summary = "(empty: the members report no status yet)"
	}
	fmt.Fprintf(d.out, "template status (aggregated): %s", summary)
	fmt.Fprintln(d.out)
	return nil
}
