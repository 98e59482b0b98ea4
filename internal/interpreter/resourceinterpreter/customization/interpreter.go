package customization

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Layer names.
const (
	NameCustomization = "customization"
	NameBuiltin       = "builtin"
)

// ErrNoRule is returned when an operation is called for a GVK that has no
// script for it (HookEnabled said false).
var ErrNoRule = errors.New("rule is not enabled")

// Options configures an Interpreter.
type Options struct {
	// Name is the layer name: NameCustomization (default) or NameBuiltin.
	Name string
	// VM runs the scripts; by default a VM with luavm.Options{} is created.
	VM *lua.VM
	// Recorder, when set, receives a Warning Event on every customization
	// with a script that does not compile.
	Recorder record.EventRecorder
	// Logger defaults to klog's.
	Logger *logr.Logger
	// CompileOnFirstCall compiles each script on its first call (through
	// the VM's cache) instead of at load, and reports a script that does
	// not compile only as that call's error. For the built-in layer,
	// whose scripts the tests compile: compiled, the scripts of every
	// built-in kind hold about 10 MB, mostly for kinds a federation
	// never propagates.
	CompileOnFirstCall bool
}

// Interpreter is the Lua customization layer.
type Interpreter struct {
	name     string
	vm       *lua.VM
	recorder record.EventRecorder
	log      logr.Logger
	// lazy is Options.CompileOnFirstCall.
	lazy bool

	cfg atomic.Pointer[config]

	// loadMu serializes loads and guards reported.
	loadMu   sync.Mutex
	reported map[string]struct{}
	onLoad   []func()

	source atomic.Pointer[informerSource]
}

var (
	_ layer.Layer     = (*Interpreter)(nil)
	_ layer.Versioned = (*Interpreter)(nil)
)

// New returns an Interpreter with no configuration: it reports
// layer.ErrNotReady until LoadConfig or its informer loads one.
func New(opts Options) *Interpreter {
	i := &Interpreter{name: opts.Name, vm: opts.VM, recorder: opts.Recorder, lazy: opts.CompileOnFirstCall, reported: map[string]struct{}{}}
	if i.name == "" {
		i.name = NameCustomization
	}
	if i.vm == nil {
		i.vm = lua.New(luavm.Options{})
	}
	if opts.Logger != nil {
		i.log = *opts.Logger
	} else {
		i.log = klog.Background()
	}
	i.log = i.log.WithValues("layer", i.name)
	return i
}

// Name implements layer.Layer.
func (i *Interpreter) Name() string { return i.name }

// Logger returns the layer's logger.
func (i *Interpreter) Logger() logr.Logger { return i.log }

// VM returns the VM running the scripts.
func (i *Interpreter) VM() *lua.VM { return i.vm }

// current returns the published configuration, loading it on the spot when
// the informer has synced but no load happened yet.
func (i *Interpreter) current() (*config, error) {
	if c := i.cfg.Load(); c != nil {
		return c, nil
	}
	i.resync()
	if c := i.cfg.Load(); c != nil {
		return c, nil
	}
	return nil, layer.ErrNotReady
}

// ConfigVersion implements layer.Versioned: the published configuration's
// number, 0 before the first load.
func (i *Interpreter) ConfigVersion() uint64 {
	if c := i.cfg.Load(); c != nil {
		return c.version
	}
	return 0
}

// HookEnabled implements layer.Layer: true when the GVK has a non-empty
// script for op (for InterpretDependency, at least one). A script that does
// not compile still counts: calling the operation returns its error.
func (i *Interpreter) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (bool, error) {
	c, err := i.current()
	if err != nil {
		return false, err
	}
	r, deps := c.lookup(gvk, op)
	return r != nil || len(deps) > 0, nil
}

// rule returns the script for obj's GVK and op, or its compile error.
func (i *Interpreter) rule(obj *unstructured.Unstructured, op configv1alpha1.InterpreterOperation) (luavm.Script, error) {
	if obj == nil {
		return luavm.Script{}, fmt.Errorf("%s: nil object", op)
	}
	c, err := i.current()
	if err != nil {
		return luavm.Script{}, err
	}
	r, _ := c.lookup(obj.GroupVersionKind(), op)
	if r == nil {
		return luavm.Script{}, fmt.Errorf("%w: no %s script for %s", ErrNoRule, op, obj.GroupVersionKind())
	}
	if r.err != nil {
		return luavm.Script{}, &luavm.ScriptError{Customization: r.script.Name, Operation: op, Err: r.err}
	}
	return r.script, nil
}

// GetReplicas implements layer.Layer.
func (i *Interpreter) GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	s, err := i.rule(obj, configv1alpha1.InterpreterOperationInterpretReplica)
	if err != nil {
		return 0, nil, err
	}
	return i.vm.GetReplicas(ctx, s, obj)
}

// ReviseReplica implements layer.Layer.
func (i *Interpreter) ReviseReplica(ctx context.Context, obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error) {
	s, err := i.rule(obj, configv1alpha1.InterpreterOperationReviseReplica)
	if err != nil {
		return nil, err
	}
	return i.vm.ReviseReplica(ctx, s, obj, replicas)
}

// GetComponents implements layer.Layer.
func (i *Interpreter) GetComponents(ctx context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	s, err := i.rule(obj, configv1alpha1.InterpreterOperationInterpretComponent)
	if err != nil {
		return nil, err
	}
	return i.vm.GetComponents(ctx, s, obj)
}

// Retain implements layer.Layer.
func (i *Interpreter) Retain(ctx context.Context, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	s, err := i.rule(desired, configv1alpha1.InterpreterOperationRetain)
	if err != nil {
		return nil, err
	}
	return i.vm.Retain(ctx, s, desired, observed)
}

// AggregateStatus implements layer.Layer.
func (i *Interpreter) AggregateStatus(ctx context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	s, err := i.rule(obj, configv1alpha1.InterpreterOperationAggregateStatus)
	if err != nil {
		return nil, err
	}
	return i.vm.AggregateStatus(ctx, s, obj, items)
}

// ReflectStatus implements layer.Layer.
func (i *Interpreter) ReflectStatus(ctx context.Context, obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	s, err := i.rule(obj, configv1alpha1.InterpreterOperationInterpretStatus)
	if err != nil {
		return nil, err
	}
	return i.vm.ReflectStatus(ctx, s, obj)
}

// InterpretHealth implements layer.Layer.
func (i *Interpreter) InterpretHealth(ctx context.Context, obj *unstructured.Unstructured) (bool, error) {
	s, err := i.rule(obj, configv1alpha1.InterpreterOperationInterpretHealth)
	if err != nil {
		return false, err
	}
	return i.vm.InterpretHealth(ctx, s, obj)
}

// HookName names the customization whose script answers op for gvk ("" when
// none does); for InterpretDependency, every contributing customization,
// comma-separated, in the order their scripts run.
func (i *Interpreter) HookName(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) string {
	c := i.cfg.Load()
	if c == nil {
		return ""
	}
	r, deps := c.lookup(gvk, op)
	if r != nil {
		return r.script.Name
	}
	names := make([]string, 0, len(deps))
	for _, d := range deps {
		names = append(names, d.script.Name)
	}
	return strings.Join(names, ",")
}
