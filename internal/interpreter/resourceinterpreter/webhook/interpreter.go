package webhook

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// DefaultTimeout bounds a call to a webhook whose timeoutSeconds is unset.
//
// Difference from Karmada: Karmada documents a 10 s default but applies
// none, so a webhook that never answers blocks the calling controller
// worker forever. Propel applies the documented 10 s, and clamps a set
// timeoutSeconds to [MinTimeout, MaxTimeout] (Karmada accepts any value).
const DefaultTimeout = 10 * time.Second

// Options configures an Interpreter.
type Options struct {
	// Services reads Services of the control plane, to resolve webhooks
	// configured with clientConfig.service. When nil such webhooks are
	// dialled at <name>.<namespace>.svc:<port>.
	Services client.Reader
	// DefaultTimeout replaces DefaultTimeout when positive (tests use
	// shorter ones); it is capped at MaxTimeout. There is no way to call a
	// webhook without a timeout.
	DefaultTimeout time.Duration
	// Logger defaults to controller-runtime's logger named
	// "resourceinterpreter.webhook".
	Logger *logr.Logger
}

// Interpreter is the customized-webhook layer. It is safe for concurrent
// use; calls read the current configuration snapshot without locking.
type Interpreter struct {
	services       client.Reader
	defaultTimeout time.Duration
	log            logr.Logger

	// current is nil until the first load: the layer is not ready.
	current atomic.Pointer[snapshot]

	// loadMu serialises loads; clients is the client cache of the last
	// load, keyed by clientKey.
	loadMu  sync.Mutex
	clients map[string]*hookClient
	onLoad  []func()
}

var (
	_ layer.Layer     = (*Interpreter)(nil)
	_ layer.Versioned = (*Interpreter)(nil)
)

// New returns an Interpreter with no configuration: HookEnabled reports
// layer.ErrNotReady until LoadConfig or Watch loads one.
func New(opts Options) *Interpreter {
	i := &Interpreter{services: opts.Services, defaultTimeout: DefaultTimeout}
	if opts.DefaultTimeout > 0 {
		i.defaultTimeout = min(opts.DefaultTimeout, MaxTimeout)
	}
	if opts.Logger != nil {
		i.log = *opts.Logger
	} else {
		i.log = log.Log.WithName("resourceinterpreter").WithName("webhook")
	}
	return i
}

// Name is "webhook".
func (i *Interpreter) Name() string { return "webhook" }

// Synced reports whether a configuration has been loaded.
func (i *Interpreter) Synced() bool { return i.current.Load() != nil }

// ConfigVersion implements layer.Versioned: the loaded snapshot's number,
// 0 before the first load.
func (i *Interpreter) ConfigVersion() uint64 {
	if s := i.current.Load(); s != nil {
		return s.version
	}
	return 0
}

// HookEnabled reports whether some webhook handles op for gvk.
func (i *Interpreter) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (bool, error) {
	s := i.current.Load()
	if s == nil {
		return false, layer.ErrNotReady
	}
	return s.match(gvk, op) != nil, nil
}

// hookFor returns the webhook that answers op for gvk.
func (i *Interpreter) hookFor(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (*hook, error) {
	s := i.current.Load()
	if s == nil {
		return nil, layer.ErrNotReady
	}
	h := s.match(gvk, op)
	if h == nil {
		return nil, noHookError(gvk, op)
	}
	return h, nil
}

// HookName names the webhook that answers op for gvk as
// "<configuration>/<webhook>", "" when none does (or nothing is loaded).
// explain and the facade's change events use it to say who answered.
func (i *Interpreter) HookName(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) string {
	s := i.current.Load()
	if s == nil {
		return ""
	}
	if h := s.match(gvk, op); h != nil {
		return h.uid
	}
	return ""
}
