package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/propel-mc/propel/pkg/controlplaneclient"
	"github.com/propel-mc/propel/pkg/resourceinterpreter"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/customization"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/replay"
)

// replayOptions are the flags of interpret --replay.
type replayOptions struct {
	enabled                 bool
	kubeconfig, kubeContext string
	kind, namespace         string
	allNamespaces, observed bool
	webhookURL, webhookCA   string
	webhookOperations       []string
	precedence              string
	memberTimeout           time.Duration
}

func (r *replayOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&r.enabled, "replay", false, "Replay the -f customizations (or --webhook-url) on the live objects of a control plane against the active configuration.")
	f.StringVar(&r.kubeconfig, "kubeconfig", "", "Control plane kubeconfig (with --replay).")
	f.StringVar(&r.kubeContext, "karmada-context", "", "Context in the control plane kubeconfig (with --replay).")
	f.StringVar(&r.kind, "kind", "", "Replay only this target kind (required with --webhook-url).")
	f.StringVarP(&r.namespace, "namespace", "n", "default", "Namespace of the templates to replay on.")
	f.BoolVarP(&r.allNamespaces, "all-namespaces", "A", false, "Replay on the templates of every namespace.")
	f.BoolVar(&r.observed, "observed", false, "Also replay Retain, InterpretStatus and InterpretHealth on the member copies of the templates.")
	f.StringVar(&r.webhookURL, "webhook-url", "", "Try the interpreter webhook at this URL instead of -f customizations.")
	f.StringVar(&r.webhookCA, "webhook-ca-file", "", "CA bundle (PEM) of --webhook-url.")
	f.StringSliceVar(&r.webhookOperations, "webhook-operations", nil, "Operations to ask --webhook-url (default: all).")
	f.StringVar(&r.precedence, "interpreter-precedence", string(resourceinterpreter.PrecedencePropel), "The controller's --interpreter-precedence (propel or karmada).")
	f.DurationVar(&r.memberTimeout, "member-timeout", 5*time.Second, "Timeout of each member cluster request.")
}

// errReplayFailed makes the command exit non-zero after printing a report
// with errors.
var errReplayFailed = errors.New("the new configuration fails on some objects")

func (o *interpretOptions) runReplay(cmd *cobra.Command) error {
	r := &o.replay
	if o.output == "yaml" {
		o.output = "text"
	}
	if o.output != "text" && o.output != "json" {
		return fmt.Errorf("unknown output format %q (want text or json)", o.output)
	}
	c := replay.Candidate{Kind: r.kind, WebhookURL: r.webhookURL}
	switch {
	case r.webhookURL != "" && len(o.files) > 0:
		return errors.New("--replay takes -f or --webhook-url, not both")
	case r.webhookURL != "":
		if r.webhookCA != "" {
			ca, err := os.ReadFile(r.webhookCA)
			if err != nil {
				return err
			}
			c.CABundle = ca
		}
		for _, name := range r.webhookOperations {
			op, err := customization.ParseOperation(name)
			if err != nil {
				return err
			}
			c.Operations = append(c.Operations, op)
		}
	case len(o.files) > 0:
		rics, err := loadCustomizations(o.files)
		if err != nil {
			return fmt.Errorf("fail to get customization object: %w", err)
		}
		c.Customizations = rics
	default:
		return errors.New("--replay needs -f CUSTOMIZATION.yaml or --webhook-url")
	}
	cfg, err := loadConfig(r.kubeconfig, r.kubeContext)
	if err != nil {
		return err
	}
	cp, err := controlplaneclient.New(cfg)
	if err != nil {
		return err
	}
	ns := r.namespace
	if r.allNamespaces {
		ns = ""
	}
	out := cmd.OutOrStdout()
	stream := newReplayStream(o.output, out, cmd.ErrOrStderr())
	rep, err := replay.Live(cmd.Context(), cp, c, replay.LiveOptions{
		Options:    replay.Options{Namespace: ns, Observed: r.observed, Observer: stream},
		Precedence: resourceinterpreter.Precedence(r.precedence), MemberTimeout: r.memberTimeout,
	})
	if err != nil {
		return err
	}
	err = stream.Finish(rep)
	if err == nil && o.output == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	}
	if err != nil {
		return err
	}
	if rep.Summary.Errors > 0 {
		return errReplayFailed
	}
	return nil
}

// newReplayStream streams the text report to out as each object is done
// (JSON is one document, written after the run) and shows progress on
// stderr when stderr is a terminal.
func newReplayStream(output string, out, stderr io.Writer) *replay.Stream {
	var report io.Writer
	if output != "json" {
		report = out
	}
	f, ok := stderr.(*os.File)
	return replay.NewStream(report, stderr, ok && term.IsTerminal(int(f.Fd())))
}
