package webhook

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// supportedContextVersion is the only ResourceInterpreterContext version.
const supportedContextVersion = "v1alpha1"

// hook is one webhook of one configuration, ready to call.
type hook struct {
	// uid is "<configuration name>/<webhook name>".
	uid     string
	spec    configv1alpha1.ResourceInterpreterWebhook
	client  *hookClient
	timeout time.Duration
	// versionErr is set when the webhook accepts no supported context version.
	versionErr error
}

// snapshot is one immutable configuration: hooks sorted by uid and the
// index over their rules.
type snapshot struct {
	hooks []*hook
	index index
	// version numbers the snapshot (layer.Versioned).
	version uint64
}

// snapshotVersions numbers the snapshots of every Interpreter; 0 is never
// used, so that it can stand for "nothing loaded".
var snapshotVersions atomic.Uint64

func (s *snapshot) match(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) *hook {
	if pos := s.index.lookup(gvk, op); pos >= 0 {
		return s.hooks[pos]
	}
	return nil
}

// LoadConfig replaces the configuration with configs and marks the layer
// synced. Hooks whose clientConfig did not change keep their HTTP client
// (and its open connections); clients no longer used are closed.
func (i *Interpreter) LoadConfig(configs []configv1alpha1.ResourceInterpreterWebhookConfiguration) {
	i.loadMu.Lock()
	defer i.loadMu.Unlock()
	hooks := flattenHooks(configs)
	clients := make(map[string]*hookClient, len(hooks))
	for _, h := range hooks {
		h.client = i.clientFor(h.spec.ClientConfig, clients)
		h.timeout = i.timeoutFor(h.spec.TimeoutSeconds)
		if s := h.spec.TimeoutSeconds; s != nil && time.Duration(*s)*time.Second != h.timeout {
			i.log.Info("interpreter webhook timeoutSeconds out of range, clamped", "webhook", h.uid, "timeoutSeconds", *s, "timeout", h.timeout)
		}
	}
	for key, c := range i.clients {
		if _, kept := clients[key]; !kept {
			c.close()
		}
	}
	i.clients = clients
	i.current.Store(&snapshot{hooks: hooks, index: buildIndex(hooks), version: snapshotVersions.Add(1)})
	i.log.V(2).Info("loaded interpreter webhook configurations", "configurations", len(configs), "webhooks", len(hooks), "clients", len(clients))
	for _, f := range i.onLoad {
		f()
	}
}

// OnLoad registers f to run after every configuration load, so that work
// interpreted before a webhook was known can be redone.
func (i *Interpreter) OnLoad(f func()) {
	i.loadMu.Lock()
	defer i.loadMu.Unlock()
	i.onLoad = append(i.onLoad, f)
}

// clientFor reuses the client of an identical clientConfig from the
// previous load or from this one, else builds one.
func (i *Interpreter) clientFor(cc admissionregistrationv1.WebhookClientConfig, building map[string]*hookClient) *hookClient {
	key := clientKey(cc)
	if c, ok := building[key]; ok {
		return c
	}
	c, ok := i.clients[key]
	if !ok {
		c = newHookClient(cc, i.services)
	}
	building[key] = c
	return c
}

// Bounds of timeoutSeconds: a value outside them is clamped, so that no
// webhook can hold a controller worker longer than MaxTimeout.
const (
	MinTimeout = 1 * time.Second
	MaxTimeout = 30 * time.Second
)

// timeoutFor is the call timeout of a webhook: timeoutSeconds clamped to
// [MinTimeout, MaxTimeout], or the default when unset.
func (i *Interpreter) timeoutFor(seconds *int32) time.Duration {
	if seconds == nil {
		return i.defaultTimeout
	}
	return min(max(time.Duration(*seconds)*time.Second, MinTimeout), MaxTimeout)
}

// flattenHooks lists every webhook of every configuration in byte-wise uid
// order, the precedence among matching webhooks. Equal uids (a webhook name
// repeated in one configuration) keep their declaration order.
func flattenHooks(configs []configv1alpha1.ResourceInterpreterWebhookConfiguration) []*hook {
	var hooks []*hook
	for ci := range configs {
		cfg := &configs[ci]
		for wi := range cfg.Webhooks {
			spec := *cfg.Webhooks[wi].DeepCopy()
			hooks = append(hooks, &hook{
				uid:        cfg.Name + "/" + spec.Name,
				spec:       spec,
				versionErr: checkContextVersions(spec.InterpreterContextVersions),
			})
		}
	}
	slices.SortStableFunc(hooks, func(a, b *hook) int { return strings.Compare(a.uid, b.uid) })
	return hooks
}

func checkContextVersions(versions []string) error {
	if slices.Contains(versions, supportedContextVersion) {
		return nil
	}
	return fmt.Errorf("webhook does not accept known ResourceInterpreterContext versions (%s)", supportedContextVersion)
}
