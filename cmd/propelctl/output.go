package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
)

// humanOutput is the -o value of the human text, which is also the
// default (an empty -o).
const humanOutput = "text"

// reportOutput is -o of a command whose result is a report about objects
// (trace, interpret --replay): the human text by default, or any of
// kubectl's printers (json, yaml, name, jsonpath=..., go-template=...).
type reportOutput struct {
	flags *genericclioptions.PrintFlags
}

// newReportOutput adds -o (and kubectl's --template,
// --allow-missing-template-keys, --show-managed-fields) to cmd.
func newReportOutput(cmd *cobra.Command) *reportOutput {
	o := &reportOutput{flags: genericclioptions.NewPrintFlags("")}
	o.flags.AddFlags(cmd)
	cmd.Flags().Lookup("output").Usage = fmt.Sprintf("Output format. One of: (%s). The default is the human text.", strings.Join(o.allowed(), ", "))
	return o
}

// reportOutputOf reads the format from a -o flag that cmd already has
// because it serves other modes too (interpret).
func reportOutputOf(format *string) *reportOutput {
	f := genericclioptions.NewPrintFlags("")
	f.OutputFormat = format
	return &reportOutput{flags: f}
}

func (o *reportOutput) allowed() []string {
	return append([]string{humanOutput}, o.flags.AllowedFormats()...)
}

func (o *reportOutput) format() string { return *o.flags.OutputFormat }

// human reports whether -o asks for the human text.
func (o *reportOutput) human() bool {
	f, tmpl := o.format(), o.flags.TemplatePrinterFlags.TemplateArgument
	return f == humanOutput || f == "" && (tmpl == nil || *tmpl == "")
}

// printer is the printer of -o, nil for the human text. An unknown format
// is an error naming the allowed ones, before any cluster is read.
func (o *reportOutput) printer() (printers.ResourcePrinter, error) {
	if o.human() {
		return nil, nil
	}
	p, err := o.flags.ToPrinter()
	if genericclioptions.IsNoCompatiblePrinterError(err) {
		return nil, fmt.Errorf("unknown output format %q: allowed formats are %s", o.format(), strings.Join(o.allowed(), ", "))
	}
	return p, err
}

// print writes report with p: its JSON form is the report's own, and
// -o name prints the objects the report is about.
func (o *reportOutput) print(p printers.ResourcePrinter, w io.Writer, report any, objects []*unstructured.Unstructured) error {
	if o.format() == "name" {
		for _, obj := range objects {
			if err := p.PrintObj(obj, w); err != nil {
				return err
			}
		}
		return nil
	}
	raw, err := json.Marshal(report)
	if err != nil {
		return err
	}
	return p.PrintObj(&runtime.Unknown{Raw: raw, ContentType: runtime.ContentTypeJSON}, w)
}

// namedObject is an object with only its kind and name, for -o name.
func namedObject(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}
