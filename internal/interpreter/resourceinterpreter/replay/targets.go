package replay

import (
	"fmt"
	"io"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// TargetsOf returns, per target kind of rics (only kind when set, matched
// case-insensitively), the operations the customizations define, in
// Karmada's rule order.
func TargetsOf(rics []configv1alpha1.ResourceInterpreterCustomization, kind string) ([]Target, error) {
	var out []Target
	index := map[schema.GroupVersionKind]int{}
	for i := range rics {
		t := rics[i].Spec.Target
		gv, err := schema.ParseGroupVersion(t.APIVersion)
		if err != nil || t.Kind == "" {
			return nil, fmt.Errorf("customization %s: invalid target %q %q", rics[i].Name, t.APIVersion, t.Kind)
		}
		if kind != "" && !strings.EqualFold(kind, t.Kind) {
			continue
		}
		gvk := gv.WithKind(t.Kind)
		pos, ok := index[gvk]
		if !ok {
			pos = len(out)
			index[gvk] = pos
			out = append(out, Target{GVK: gvk})
		}
		for _, op := range customization.Operations() {
			if customization.ScriptOf(&rics[i].Spec.Customizations, op) != "" && !contains(out[pos].Operations, op) {
				out[pos].Operations = append(out[pos].Operations, op)
			}
		}
	}
	if len(out) == 0 && kind != "" {
		return nil, fmt.Errorf("no customization in the file targets kind %s", kind)
	}
	for i := range out {
		ops := out[i].Operations
		ordered := ops[:0:0]
		for _, op := range customization.Operations() {
			if contains(ops, op) {
				ordered = append(ordered, op)
			}
		}
		out[i].Operations = ordered
	}
	return out, nil
}

func contains(ops []configv1alpha1.InterpreterOperation, op configv1alpha1.InterpreterOperation) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// WebhookCandidate is a ResourceInterpreterWebhookConfiguration for a
// webhook at url (not registered yet) answering ops of gvk.
func WebhookCandidate(url string, caBundle []byte, gvk schema.GroupVersionKind, ops []configv1alpha1.InterpreterOperation) configv1alpha1.ResourceInterpreterWebhookConfiguration {
	c := configv1alpha1.ResourceInterpreterWebhookConfiguration{}
	c.Name = "propelctl-replay"
	c.Webhooks = []configv1alpha1.ResourceInterpreterWebhook{{
		Name:         "candidate",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
		Rules: []configv1alpha1.RuleWithOperations{{
			Operations: ops, APIGroups: []string{gvk.Group}, APIVersions: []string{gvk.Version}, Kinds: []string{gvk.Kind},
		}},
		InterpreterContextVersions: []string{"v1alpha1"},
	}}
	return c
}

// WriteText prints one line per object with its outcome, the operations
// that changed or failed beneath it, the skipped operations, and the
// summary line last. Stream prints the same as the run goes.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	for _, obj := range r.Objects {
		writeObject(&b, obj)
	}
	writeEnd(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeObject is an object's lines of the text report.
func writeObject(b *strings.Builder, obj ObjectReport) {
	name := obj.Name
	if obj.Namespace != "" {
		name = obj.Namespace + "/" + name
	}
	if obj.Cluster != "" {
		name += " @" + obj.Cluster
	}
	fmt.Fprintf(b, "%-7s %s %s\n", obj.Outcome, obj.Kind, name)
	for _, op := range obj.Operations {
		if op.Outcome == Same {
			continue
		}
		who := op.New
		if op.Active != op.New {
			who = op.Active + " -> " + op.New
		}
		fmt.Fprintf(b, "        %s (%s): %s\n", op.Operation, who, op.Outcome)
		if op.NewError != "" {
			fmt.Fprintf(b, "          error: %s\n", op.NewError)
		}
		if op.ActiveError != "" {
			fmt.Fprintf(b, "          active configuration error: %s\n", op.ActiveError)
		}
		for _, c := range op.Changes {
			fmt.Fprintf(b, "          %s\n", c)
		}
	}
}

// writeEnd is the skipped operations and the summary line.
func writeEnd(b *strings.Builder, r *Report) {
	for _, s := range r.Skipped {
		fmt.Fprintf(b, "skipped %s\n", s)
	}
	b.WriteString(r.Summary.String() + "\n")
}
