package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/replay"
)

// replayOptions are the flags of interpret --replay.
type replayOptions struct {
	enabled                 bool
	kind                    string
	allNamespaces, observed bool
	webhookURL, webhookCA   string
	webhookOperations       []string
	precedence              string
	memberTimeout           time.Duration
}

func (r *replayOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&r.enabled, "replay", false, "Replay the -f customizations (or --webhook-url) on the live objects of a control plane against the active configuration.")
	f.StringVar(&r.kind, "kind", "", "Replay only this target kind (required with --webhook-url).")
	f.BoolVarP(&r.allNamespaces, "all-namespaces", "A", false, "Replay on the templates of every namespace instead of -n's (default: the context's).")
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

func (o *interpretOptions) runReplay(cmd *cobra.Command, cp *controlPlaneFlags) error {
	r := &o.replay
	output := reportOutputOf(&o.output)
	printer, err := output.printer()
	if err != nil {
		return err
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
	ns := ""
	if !r.allNamespaces {
		if ns, err = cp.namespace(); err != nil {
			return err
		}
	}
	clients, err := cp.clients()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	stream := newReplayStream(printer == nil, out, cmd.ErrOrStderr())
	rep, err := replay.Live(cmd.Context(), clients, c, replay.LiveOptions{
		Options:    replay.Options{Namespace: ns, Observed: r.observed, Observer: stream},
		Precedence: resourceinterpreter.Precedence(r.precedence), MemberTimeout: r.memberTimeout,
	})
	if err != nil {
		return err
	}
	err = stream.Finish(rep)
	if err == nil && printer != nil {
		err = output.print(printer, out, rep, replayedObjects(rep))
	}
	if err != nil {
		return err
	}
	if rep.Summary.Errors > 0 {
		return errReplayFailed
	}
	return nil
}

// replayedObjects are the templates of rep, for -o name; member copies
// (with --observed) share their template's name and are left out.
func replayedObjects(rep *replay.Report) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, obj := range rep.Objects {
		if obj.Cluster == "" {
			out = append(out, namedObject(obj.APIVersion, obj.Kind, obj.Namespace, obj.Name))
		}
	}
	return out
}

// newReplayStream streams the text report (text is true) to out as each
// object is done, where the other formats print one document after the
// run, and shows progress on stderr when stderr is a terminal.
func newReplayStream(text bool, out, stderr io.Writer) *replay.Stream {
	var report io.Writer
	if text {
		report = out
	}
	f, ok := stderr.(*os.File)
	return replay.NewStream(report, stderr, ok && term.IsTerminal(int(f.Fd())))
}
