package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/builtin"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

type interpretOptions struct {
	files                                 []string
	operation                             string
	desiredFile, observedFile, statusFile string
	desiredReplica                        int64
	check, listBuiltin                    bool
	output                                string
	replay                                replayOptions
}

const interpretExample = `  # Run a customization's replica rule on a local object
  propelctl interpret -f customization.yaml --operation interpretReplica --desired-file deployment.yaml

  # Aggregate member statuses read from stdin, as JSON
  propelctl interpret -f customization.yaml --operation aggregateStatus --desired-file deployment.yaml --status-file - -o json < status.yaml

  # Compile every rule of the built-in interpreters
  propelctl interpret --check

  # The kinds and operations Propel's built-in interpreters cover
  propelctl interpret --list-builtin

  # Try a new customization on the live objects of the context's namespace
  propelctl interpret --replay -f customization.yaml

  # ... of every namespace, with member copies, and list the changed objects
  propelctl interpret --replay -f customization.yaml -A --observed -o jsonpath='{range .objects[?(@.outcome=="changed")]}{.name}{"\n"}{end}'`

func newInterpretCommand(cp *controlPlaneFlags) *cobra.Command {
	o := &interpretOptions{}
	cmd := &cobra.Command{
		Use:   "interpret [-f CUSTOMIZATION.yaml] (--operation OP | --check | --list-builtin)",
		Short: "Run resource interpreter operations locally, as the controller would",
		Long: `With -f, runs the given ResourceInterpreterCustomizations only (no webhook,
built-in or native interpreter), exactly as propel-controller-manager runs
them. Without -f, answers as propel-controller-manager does for a cluster
that holds no customization and no interpreter webhook: Propel's built-in
interpreters for third-party kinds, then the native ones.
OP is one of interpretReplica, reviseReplica, retain, aggregateStatus,
interpretStatus, interpretHealth, interpretDependency, interpretComponent
(any case). --check compiles every rule (of the built-in interpreters
without -f); --list-builtin prints the kinds and operations Propel ships.

--replay runs, on the live objects of a control plane, every operation
the -f customizations define (or, with --webhook-url and --kind, the
operations of a webhook not registered yet) with the new and with the
active configuration, and prints per object and operation the answering
layers, the differences and the errors, then "N objects: a same,
b changed, c error". It exits non-zero when the new configuration errs.`,
		Example: interpretExample,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, cp) },
	}
	f := cmd.Flags()
	f.StringSliceVarP(&o.files, "filename", "f", nil, "Files containing ResourceInterpreterCustomizations (YAML or JSON). Without it, the built-in and native interpreters answer.")
	f.StringVar(&o.operation, "operation", "", "The operation to run.")
	f.StringVar(&o.desiredFile, "desired-file", "", "File with the desired object (the resource template).")
	f.StringVar(&o.observedFile, "observed-file", "", "File with the observed object (from a member cluster).")
	f.StringVar(&o.statusFile, "status-file", "", "File with a YAML or JSON list of AggregatedStatusItem, or '-' for stdin.")
	f.Int64Var(&o.desiredReplica, "desired-replica", 0, "Replicas for reviseReplica.")
	f.BoolVar(&o.check, "check", false, "Compile every rule and print PASS, UNSET or ERROR per rule.")
	f.BoolVar(&o.listBuiltin, "list-builtin", false, "Print the kinds Propel's built-in interpreters cover and their operations.")
	f.StringVarP(&o.output, "output", "o", "", "Output format: yaml (the default) or json; with --replay: text (the default), json, yaml, name, jsonpath=..., go-template=... (kubectl's printers).")
	o.replay.addFlags(f)
	return cmd
}

func (o *interpretOptions) run(cmd *cobra.Command, cp *controlPlaneFlags) error {
	if o.replay.enabled {
		return o.runReplay(cmd, cp)
	}
	if o.output == "" {
		o.output = "yaml"
	}
	if o.output != "yaml" && o.output != "json" {
		return fmt.Errorf("unknown output format %q: allowed formats are yaml, json (with --replay: %s)", o.output, strings.Join(reportOutputOf(new(string)).allowed(), ", "))
	}
	if o.listBuiltin {
		if len(o.files) > 0 {
			return errors.New("--list-builtin does not take -f")
		}
		return listBuiltin(cmd.OutOrStdout(), o.output)
	}
	var rics []configv1alpha1.ResourceInterpreterCustomization
	var err error
	if len(o.files) > 0 {
		if rics, err = loadCustomizations(o.files); err != nil {
			return fmt.Errorf("fail to get customization object: %w", err)
		}
	} else if o.check {
		if rics, err = builtin.Load(builtin.FS()); err != nil {
			return err
		}
	}
	if o.check {
		return checkCustomizations(cmd.OutOrStdout(), rics)
	}
	if o.operation == "" {
		return errors.New("operation is not set for executing")
	}
	op, err := customization.ParseOperation(o.operation)
	if err != nil {
		return err
	}
	args := customization.Args{Replicas: o.desiredReplica}
	if args.Desired, err = loadObject(o.desiredFile); err != nil {
		return fmt.Errorf("fail to get desired object: %w", err)
	}
	if args.Observed, err = loadObject(o.observedFile); err != nil {
		return fmt.Errorf("fail to get observed object: %w", err)
	}
	if args.StatusItems, err = loadStatusItems(o.statusFile, cmd.InOrStdin()); err != nil {
		return fmt.Errorf("fail to get status items: %w", err)
	}
	var results []customization.Result
	if len(o.files) > 0 {
		results, err = customization.RunOperation(cmd.Context(), rics, op, args, checkedLayer)
	} else {
		results, err = builtin.Run(cmd.Context(), op, args)
	}
	if err != nil {
		return fmt.Errorf("execute %s: %w", op, inFlagTerms(err))
	}
	return printResults(cmd.OutOrStdout(), o.output, results)
}

// inFlagTerms words the interpreter's missing-object errors in terms of
// this command's flags, as Karmada's interpret command does.
func inFlagTerms(err error) error {
	switch {
	case errors.Is(err, customization.ErrNoObject):
		return errors.New("desired-file, observed-file options are not set")
	case errors.Is(err, customization.ErrBothObjects):
		return errors.New("you can not specify both desired-file and observed-file options")
	case errors.Is(err, customization.ErrNoDesired):
		return errors.New("desired, desired-file options are not set")
	case errors.Is(err, customization.ErrNoObserved):
		return errors.New("observed, observed-file options are not set")
	}
	return err
}

// checkedLayer puts the facade, and with it every check the controller
// applies to an answer, in front of the -f customizations.
func checkedLayer(l layer.Layer) layer.Operations { return resourceinterpreter.New(l) }

// printResults writes Karmada's "---\n# [i/N] name:\nvalue" blocks, or one
// JSON object keyed by result name.
func printResults(w io.Writer, format string, results []customization.Result) error {
	if format == "json" {
		out := map[string]any{}
		for _, r := range results {
			out[r.Name] = r.Value
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for i, r := range results {
		raw, err := json.Marshal(r.Value)
		if err != nil {
			return err
		}
		y, err := yaml.JSONToYAML(raw)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "---\n# [%d/%d] %s:\n%s", i+1, len(results), r.Name, y)
	}
	return nil
}

// operationColumns are the headers of --list-builtin, in Karmada's rule
// order.
var operationColumns = map[configv1alpha1.InterpreterOperation]string{
	configv1alpha1.InterpreterOperationRetain:              "RETAIN",
	configv1alpha1.InterpreterOperationInterpretReplica:    "REPLICA",
	configv1alpha1.InterpreterOperationInterpretComponent:  "COMPONENT",
	configv1alpha1.InterpreterOperationReviseReplica:       "REVISE",
	configv1alpha1.InterpreterOperationInterpretStatus:     "STATUS",
	configv1alpha1.InterpreterOperationAggregateStatus:     "AGGREGATE",
	configv1alpha1.InterpreterOperationInterpretHealth:     "HEALTH",
	configv1alpha1.InterpreterOperationInterpretDependency: "DEPENDENCY",
}

// listBuiltin prints the built-in kinds x operations: a table with "x"
// where the kind defines the operation, or the entries as JSON.
func listBuiltin(w io.Writer, format string) error {
	entries, err := builtin.Table()
	if err != nil {
		return err
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	ops := customization.Operations()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "APIVERSION\tKIND")
	for _, op := range ops {
		fmt.Fprint(tw, "\t", operationColumns[op])
	}
	fmt.Fprintln(tw)
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s", e.APIVersion, e.Kind)
		for _, op := range ops {
			mark := "-"
			if slices.Contains(e.Operations, op) {
				mark = "x"
			}
			fmt.Fprint(tw, "\t", mark)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func checkCustomizations(w io.Writer, rics []configv1alpha1.ResourceInterpreterCustomization) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	failed := false
	for i := range rics {
		ric := &rics[i]
		fmt.Fprintf(tw, "%s\nSOURCE: %s\n", strings.Repeat("-", 35), ric.Name)
		switch {
		case ric.Spec.Target.Kind == "":
			fmt.Fprintln(tw, "target.kind no set")
			failed = true
			continue
		case ric.Spec.Target.APIVersion == "":
			fmt.Fprintln(tw, "target.apiVersion no set")
			failed = true
			continue
		}
		fmt.Fprintf(tw, "TARGET: %s %s\nRULERS:\n", ric.Spec.Target.APIVersion, ric.Spec.Target.Kind)
		for _, rule := range customization.Check(ric) {
			verdict := "PASS"
			switch {
			case !rule.Set:
				verdict = "UNSET"
			case rule.Err != nil:
				verdict, failed = "ERROR: "+strings.TrimSpace(rule.Err.Error()), true
			}
			fmt.Fprintf(tw, "    %s:\t%s\n", rule.Operation, verdict)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if failed {
		return errors.New("some customizations have errors")
	}
	return nil
}

// decodeAll reads every YAML or JSON document of data.
func decodeAll(data []byte, each func(raw []byte) error) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
			continue
		}
		if err := each(raw); err != nil {
			return err
		}
	}
}

func loadCustomizations(files []string) ([]configv1alpha1.ResourceInterpreterCustomization, error) {
	var out []configv1alpha1.ResourceInterpreterCustomization
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		err = decodeAll(data, func(raw []byte) error {
			ric := configv1alpha1.ResourceInterpreterCustomization{}
			if err := json.Unmarshal(raw, &ric); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			if ric.Kind != "ResourceInterpreterCustomization" {
				return fmt.Errorf("%s: not a ResourceInterpreterCustomization, got %s", f, ric.GroupVersionKind())
			}
			out = append(out, ric)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func loadObject(file string) (*unstructured.Unstructured, error) {
	if file == "" {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	err = decodeAll(data, func(raw []byte) error {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		objs = append(objs, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("get %d objects, expect one", len(objs))
	}
	return objs[0], nil
}

// loadStatusItems accepts a YAML or JSON list, or a stream of items. As
// with Karmada's command, a given file without items is an empty list, not
// nil: scripts tell the two apart (statusItems == nil).
func loadStatusItems(file string, stdin io.Reader) ([]workv1alpha2.AggregatedStatusItem, error) {
	if file == "" {
		return nil, nil
	}
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, err
	}
	items := []workv1alpha2.AggregatedStatusItem{}
	err = decodeAll(data, func(raw []byte) error {
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			var list []workv1alpha2.AggregatedStatusItem
			if err := json.Unmarshal(raw, &list); err != nil {
				return err
			}
			items = append(items, list...)
			return nil
		}
		var item workv1alpha2.AggregatedStatusItem
		if err := json.Unmarshal(raw, &item); err != nil {
			return err
		}
		items = append(items, item)
		return nil
	})
	return items, err
}
