package localenv

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress prints a line when each process of an environment starts and
// another when it is ready, with the time it took, so that a slow or stuck
// start shows which process it is waiting for. Lines are whole and plain
// (no cursor movement): the output reads the same in a terminal, a pipe or
// a CI log. A nil *Progress prints nothing.
type Progress struct {
	out     io.Writer
	now     func() time.Time
	mu      sync.Mutex
	started map[string]time.Time
}

// NewProgress writes to out and measures with now (time.Now outside tests).
func NewProgress(out io.Writer, now func() time.Time) *Progress {
	return &Progress{out: out, now: now, started: map[string]time.Time{}}
}

// Starting records that name starts now: "  etcd starting".
func (p *Progress) Starting(name string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started[name] = p.now()
	fmt.Fprintf(p.out, "  %s starting\n", name)
}

// Ready reports that name answers its readiness check, with the time since
// Starting: "  etcd ready (1.2s)".
func (p *Progress) Ready(name string) {
	p.done(name, "ready")
}

// ReadyAt is Ready with where name serves: "  etcd ready at http://... (1.2s)".
func (p *Progress) ReadyAt(name, addr string) {
	p.done(name, "ready at "+addr)
}

// Step reports a step that is not a process (installing CRDs, joining a
// member) once it is done, with the time it took since since.
func (p *Progress) Step(what string, since time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, "  %s (%s)\n", what, elapsed(p.now().Sub(since)))
}

// Now is the progress clock, for Step.
func (p *Progress) Now() time.Time {
	if p == nil {
		return time.Time{}
	}
	return p.now()
}

func (p *Progress) done(name, what string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	start, ok := p.started[name]
	if !ok {
		fmt.Fprintf(p.out, "  %s %s\n", name, what)
		return
	}
	fmt.Fprintf(p.out, "  %s %s (%s)\n", name, what, elapsed(p.now().Sub(start)))
}

// elapsed is d in seconds with one decimal ("0.8s", "12.3s"), and in
// Duration's form from a minute on ("1m3.4s").
func elapsed(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.String()
}
