package vm

import (
	"strings"
	"sync"
	"time"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/klog/v2"
)

// Script print() goes to the structured log of the call's context, not to
// stdout: each line bounded to maxPrintBytes, and at most maxPrintLines
// lines a second per VM (the rest are counted and reported with the next
// line logged).
const (
	maxPrintBytes = 1024
	maxPrintLines = 20
)

type printLimiter struct {
	mu      sync.Mutex
	window  time.Time
	lines   int
	dropped int
}

// allow reports whether a line may be logged now, and how many were
// dropped since the last one logged.
func (p *printLimiter) allow() (bool, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.window) >= time.Second {
		p.window, p.lines = now, 0
	}
	if p.lines >= maxPrintLines {
		p.dropped++
		return false, 0
	}
	p.lines++
	dropped := p.dropped
	p.dropped = 0
	return true, dropped
}

// print is the sandbox's print: its arguments, as tostring gives them,
// separated by tabs.
func (vm *VM[S]) print(L *glua.LState) int {
	var b strings.Builder
	for i, top := 1, L.GetTop(); i <= top && b.Len() <= maxPrintBytes; i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		str := L.ToStringMeta(L.Get(i)).String()
		b.WriteString(truncateTo(str, maxPrintBytes+1-b.Len()))
	}
	line := b.String()
	if len(line) > maxPrintBytes {
		line = truncateTo(line, maxPrintBytes) + "... (truncated)"
	}
	ok, dropped := vm.printed.allow()
	if !ok {
		return 0
	}
	bud, ok := L.Context().(*budget)
	if !ok {
		return 0
	}
	logger := klog.FromContext(bud.parent)
	logger.Info("lua script print", "customization", bud.script, "operation", bud.op, "message", line, "droppedLines", dropped)
	return 0
}
