package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/replay"
)

// A report prints through each of kubectl's printers as its own JSON
// model; -o name prints its templates.
func TestReportPrinters(t *testing.T) {
	rep := &replay.Report{
		Objects: []replay.ObjectReport{
			{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: "web", Outcome: replay.Changed},
			{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: "web", Cluster: "member1", Outcome: replay.Same},
		},
		Summary: replay.Summary{Objects: 2, Same: 1, Changed: 1},
	}
	for format, want := range map[string]string{
		"name":                          "deployment.apps/web\n",
		"jsonpath={.summary.changed}":   "1",
		"go-template={{.summary.same}}": "1",
		"yaml":                          "summary:\n  changed: 1\n  errors: 0\n  objects: 2\n  same: 1\n",
		"kyaml":                         "changed: 1",
	} {
		cmd := &cobra.Command{}
		o := newReportOutput(cmd)
		if err := cmd.Flags().Set("output", format); err != nil {
			t.Fatal(err)
		}
		p, err := o.printer()
		if err != nil || p == nil {
			t.Fatalf("%s: printer %v, %v", format, p, err)
		}
		var out bytes.Buffer
		if err := o.print(p, &out, rep, replayedObjects(rep)); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("-o %s printed %q, want %q in it", format, out.String(), want)
		}
	}
	cmd := &cobra.Command{}
	o := newReportOutput(cmd)
	_ = cmd.Flags().Set("output", "json")
	p, _ := o.printer()
	var out bytes.Buffer
	if err := o.print(p, &out, rep, nil); err != nil {
		t.Fatal(err)
	}
	var back replay.Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back.Summary != rep.Summary || len(back.Objects) != 2 {
		t.Errorf("-o json: %v, %s", err, out.String())
	}
	for _, human := range []string{"", "text"} {
		cmd := &cobra.Command{}
		o := newReportOutput(cmd)
		_ = cmd.Flags().Set("output", human)
		if p, err := o.printer(); p != nil || err != nil {
			t.Errorf("-o %q: printer %v, %v; want the text", human, p, err)
		}
	}
}
