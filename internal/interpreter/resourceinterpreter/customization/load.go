package customization

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// ReasonInvalidScript is the reason of the Warning Event recorded on a
// customization whose script does not compile.
const ReasonInvalidScript = "InvalidLuaScript"

// LoadConfig replaces the configuration with list, merged by Karmada's
// rules, and marks the layer synced. Every script is compiled (unless
// Options.CompileOnFirstCall defers it): one that does not compile is
// reported (Event, log) and its operation returns the compile error when
// called. The next call sees the new configuration.
func (i *Interpreter) LoadConfig(list []configv1alpha1.ResourceInterpreterCustomization) {
	i.loadMu.Lock()
	defer i.loadMu.Unlock()
	compile := i.vm.Compile
	if i.lazy {
		compile = func(luavm.Script) error { return nil }
	}
	cfg, problems := buildConfig(list, compile)
	i.cfg.Store(cfg)
	i.report(problems)
	for _, f := range i.onLoad {
		f()
	}
}

// OnLoad registers f to run after every configuration load, so that work
// interpreted before a customization was known can be redone.
func (i *Interpreter) OnLoad(f func()) {
	i.loadMu.Lock()
	defer i.loadMu.Unlock()
	i.onLoad = append(i.onLoad, f)
}

// report logs and records each problem once per customization version.
func (i *Interpreter) report(problems []compileProblem) {
	reported := make(map[string]struct{}, len(problems))
	for _, p := range problems {
		key := fmt.Sprintf("%s/%s/%s/%s", p.ric.Name, p.ric.UID, p.ric.ResourceVersion, p.op)
		reported[key] = struct{}{}
		if _, done := i.reported[key]; done {
			continue
		}
		line := 0
		var ce *luavm.CompileError
		if errors.As(p.err, &ce) {
			line = ce.Line
		}
		i.log.Error(p.err, "lua script does not compile",
			"customization", klog.KObj(p.ric), "operation", p.op, "line", line)
		if i.recorder != nil {
			i.recorder.Eventf(p.ric, corev1.EventTypeWarning, ReasonInvalidScript,
				"InterpreterOperation(%s) Lua script error: %v", p.op, p.err)
		}
	}
	i.reported = reported
}
