package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// TextOptions control Text.
type TextOptions struct {
	// Now is the time ages are computed against.
	Now time.Time
	// Color adds ANSI colours (callers set it when stdout is a terminal).
	Color bool
	// MaxValue bounds the JSON of a value shown inline (default 160).
	MaxValue int
}

// Text writes x as a compact tree: one branch per stage, one line per
// answer, events with their ages.
func Text(w io.Writer, x *Explanation, o TextOptions) error {
	if o.MaxValue <= 0 {
		o.MaxValue = 160
	}
	r := &renderer{o: o}
	t := x.Template
	root := &node{text: fmt.Sprintf("%s %s (%s, generation %d)", r.bold(t.Kind), key(t.Namespace, t.Name), t.APIVersion, t.Generation)}
	root.add(r.policy(x.Policy))
	root.add(r.interpreter(&x.Interpreter))
	root.add(r.scheduling(x.Scheduling))
	for i := range x.Clusters {
		root.add(r.cluster(&x.Clusters[i]))
	}
	root.add(r.status(&x.Status))
	if len(x.Events) > 0 {
		n := &node{text: r.bold("events")}
		r.events(n, x.Events)
		root.add(n)
	}
	if len(x.Problems) > 0 {
		n := &node{text: r.warn("problems")}
		for _, p := range x.Problems {
			n.add(&node{text: r.warn(p)})
		}
		root.add(n)
	}
	var b strings.Builder
	root.write(&b, "", "")
	_, err := io.WriteString(w, b.String())
	return err
}

type node struct {
	text     string
	children []*node
}

func (n *node) add(c *node) {
	if c != nil {
		n.children = append(n.children, c)
	}
}

func (n *node) leaf(format string, args ...any) {
	n.children = append(n.children, &node{text: fmt.Sprintf(format, args...)})
}

func (n *node) write(b *strings.Builder, first, rest string) {
	b.WriteString(first)
	b.WriteString(n.text)
	b.WriteByte('\n')
	for i, c := range n.children {
		if i == len(n.children)-1 {
			c.write(b, rest+"└─ ", rest+"   ")
		} else {
			c.write(b, rest+"├─ ", rest+"│  ")
		}
	}
}

type renderer struct{ o TextOptions }

func (r *renderer) paint(code, s string) string {
	if !r.o.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (r *renderer) bold(s string) string { return r.paint("1", s) }
func (r *renderer) good(s string) string { return r.paint("32", s) }
func (r *renderer) warn(s string) string { return r.paint("33", s) }
func (r *renderer) bad(s string) string  { return r.paint("31", s) }

// status colours a condition status or health.
func (r *renderer) state(s string) string {
	switch s {
	case "True", "Healthy", "healthy":
		return r.good(s)
	case "False", "Unhealthy", "unhealthy":
		return r.bad(s)
	}
	return r.warn(s)
}

func (r *renderer) raw(v json.RawMessage) string {
	s := strings.TrimSpace(string(v))
	if len(s) > r.o.MaxValue {
		s = s[:r.o.MaxValue] + "..."
	}
	return s
}

// Age renders d as kubectl does: 45s, 3m, 2h, 5d.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func (r *renderer) age(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return Age(r.o.Now.Sub(t))
}

func (r *renderer) events(n *node, evs []Event) {
	for _, e := range evs {
		typ := e.Type
		if typ == "Warning" {
			typ = r.bad(typ)
		}
		count := ""
		if e.Count > 1 {
			count = fmt.Sprintf(" (x%d)", e.Count)
		}
		n.leaf("event %s ago %s %s %s%s: %s", r.age(e.LastSeen), typ, e.Object, e.Reason, count, e.Message)
	}
}

func (r *renderer) condition(label string, c *Condition) string {
	s := fmt.Sprintf("%s %s %s", label, r.state(c.Status), c.Reason)
	if !c.LastTransitionTime.IsZero() {
		s += " (" + r.age(c.LastTransitionTime) + " ago)"
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}

var implicitLabel = map[int]string{1: "all of the kind", 2: "label selector", 3: "name"}

func (r *renderer) policy(p *PolicyStage) *node {
	if p == nil {
		return nil
	}
	n := &node{text: r.bold("policy") + " " + r.warn("none")}
	if p.Kind != "" {
		n.text = fmt.Sprintf("%s %s %s (priority %d, matched by %s)", r.bold("policy"), p.Kind, key(p.Namespace, p.Name), p.Priority, implicitLabel[p.ImplicitPriority])
	}
	for _, k := range sortedKeys(p.ClaimLabels) {
		n.leaf("claim label %s=%s", k, p.ClaimLabels[k])
	}
	for _, o := range p.Others {
		n.leaf("lost %s %s: %s", o.Kind, key(o.Namespace, o.Name), o.Reason)
	}
	r.events(n, p.Events)
	return n
}

func (r *renderer) interpreter(st *InterpreterStage) *node {
	n := &node{text: r.bold("interpreter") + " (" + st.Source + ")"}
	width := 0
	for _, op := range st.Operations {
		width = max(width, len(op.Operation))
	}
	for _, op := range st.Operations {
		who := op.Layer
		if op.Hook != "" {
			who += " " + op.Hook
		}
		line := fmt.Sprintf("%-*s  %s", width, op.Operation, who)
		switch {
		case op.Error != "":
			if who == "" {
				line = fmt.Sprintf("%-*s  %s", width, op.Operation, r.warn(op.Error))
			} else {
				line += ": " + r.bad(op.Error)
			}
		case len(op.Result) > 0 && string(op.Result) != "null":
			line += ": " + r.raw(op.Result)
		}
		n.leaf("%s", line)
	}
	return n
}

func (r *renderer) scheduling(s *SchedulingStage) *node {
	if s == nil {
		return &node{text: r.bold("scheduling") + " " + r.warn("no binding")}
	}
	var targets []string
	for _, c := range s.Clusters {
		targets = append(targets, fmt.Sprintf("%s:%d", c.Name, c.Replicas))
	}
	if len(targets) == 0 {
		targets = []string{r.warn("no clusters")}
	}
	n := &node{text: fmt.Sprintf("%s %s %s: %d replicas -> %s", r.bold("scheduling"), s.Binding.Kind, key(s.Binding.Namespace, s.Binding.Name), s.Replicas, strings.Join(targets, " "))}
	if len(s.Placement) > 0 {
		n.leaf("placement %s", r.raw(s.Placement))
	}
	for i := range s.Conditions {
		n.leaf("%s", r.condition("condition", &s.Conditions[i]))
	}
	r.events(n, s.Events)
	return n
}

func optInt(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func (r *renderer) cluster(c *ClusterStage) *node {
	n := &node{text: fmt.Sprintf("%s %s  Work %s", r.bold("cluster"), c.Name, key(c.Work.Namespace, c.Work.Name))}
	if c.Work.UID == "" {
		n.text += " " + r.warn("(missing)")
	}
	n.leaf("replicas scheduled %d, in Work %s, in member %s", c.ScheduledReplicas, optInt(c.ManifestReplicas), optInt(c.MemberReplicas))
	for _, o := range c.Overrides {
		n.leaf("override %s %s: %s", o.Kind, o.Policy, r.raw(o.Overriders))
	}
	for _, f := range c.Retained {
		n.leaf("retained %s", f.String())
	}
	if c.Applied != nil {
		n.leaf("%s", r.condition("applied", c.Applied))
	}
	m := c.Member
	switch {
	case m.Error != "":
		n.leaf("member %s: %s", r.bad("unreachable"), m.Error)
	case !m.Reachable:
	case !m.Found:
		n.leaf("member %s", r.warn("object not found"))
	default:
		line := fmt.Sprintf("member generation %d, observedGeneration %s", m.Generation, optInt(m.ObservedGeneration))
		if m.Healthy != nil {
			h := "unhealthy"
			if *m.Healthy {
				h = "healthy"
			}
			line += ", " + r.state(h)
		}
		n.leaf("%s", line)
	}
	if c.Health != "" || len(c.Status) > 0 {
		n.leaf("reflected health %s, status %s", r.state(c.Health), r.raw(c.Status))
	}
	r.events(n, c.Events)
	return n
}

func (r *renderer) status(s *StatusStage) *node {
	n := &node{text: r.bold("status")}
	for _, it := range s.Aggregated {
		applied := r.good("applied")
		if !it.Applied {
			applied = r.bad("not applied")
			if it.AppliedMessage != "" {
				applied += " (" + it.AppliedMessage + ")"
			}
		}
		n.leaf("aggregated %s %s, %s", it.Cluster, applied, r.state(it.Health))
	}
	for i := range s.Conditions {
		n.leaf("%s", r.condition("condition", &s.Conditions[i]))
	}
	if len(s.Template) > 0 {
		n.leaf("template .status %s", r.raw(s.Template))
	}
	return n
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
