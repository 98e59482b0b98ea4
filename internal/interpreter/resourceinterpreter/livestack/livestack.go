// Package livestack builds, for the command line, the resource interpreter
// the controller runs: the facade of internal/interpreter/resourceinterpreter over the same
// webhook, Lua customization, built-in and native layers, loaded once (no
// watch) from the control plane's current
// ResourceInterpreterWebhookConfigurations and
// ResourceInterpreterCustomizations. Options can add or replace
// configurations, to try a new customization or webhook against live
// objects before registering it (interpret --replay).
package livestack

import (
	"context"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/builtin"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Config is the interpreter configuration of a control plane.
type Config struct {
	Customizations []configv1alpha1.ResourceInterpreterCustomization
	Webhooks       []configv1alpha1.ResourceInterpreterWebhookConfiguration
}

// Read lists the configuration objects of the control plane.
func Read(ctx context.Context, r client.Reader) (Config, error) {
	var rics configv1alpha1.ResourceInterpreterCustomizationList
	if err := r.List(ctx, &rics); err != nil {
		return Config{}, fmt.Errorf("list ResourceInterpreterCustomizations: %w", err)
	}
	var whs configv1alpha1.ResourceInterpreterWebhookConfigurationList
	if err := r.List(ctx, &whs); err != nil {
		return Config{}, fmt.Errorf("list ResourceInterpreterWebhookConfigurations: %w", err)
	}
	return Config{Customizations: rics.Items, Webhooks: whs.Items}, nil
}

// WithCustomizations returns c with rics added, each replacing the live
// customization of the same name.
func (c Config) WithCustomizations(rics []configv1alpha1.ResourceInterpreterCustomization) Config {
	return Config{Customizations: replaceByName(c.Customizations, rics), Webhooks: c.Webhooks}
}

// WithWebhooks returns c with whs added, each replacing the live
// configuration of the same name.
func (c Config) WithWebhooks(whs []configv1alpha1.ResourceInterpreterWebhookConfiguration) Config {
	return Config{Customizations: c.Customizations, Webhooks: replaceByName(c.Webhooks, whs)}
}

// replaceByName is the live objects not named in added, then added.
func replaceByName[T any, PT interface {
	*T
	GetName() string
}](live, added []T) []T {
	replaced := map[string]bool{}
	for i := range added {
		replaced[PT(&added[i]).GetName()] = true
	}
	var out []T
	for i := range live {
		if !replaced[PT(&live[i]).GetName()] {
			out = append(out, live[i])
		}
	}
	return append(out, added...)
}

// Options choose the layer order and webhook calls.
type Options struct {
	// Precedence is the controller's --interpreter-precedence.
	Precedence resourceinterpreter.Precedence
	// Services resolves webhooks configured with a Service (the control
	// plane's client); nil dials <name>.<namespace>.svc.
	Services client.Reader
	// WebhookTimeout replaces the default timeout of webhook calls.
	WebhookTimeout time.Duration
}

// Stack is a loaded interpreter; Close releases its Lua VMs.
type Stack struct {
	*resourceinterpreter.Interpreter
	lua, builtin *customization.Interpreter
}

// New builds the interpreter for cfg, in the order opts.Precedence fixes.
func New(cfg Config, opts Options) (*Stack, error) {
	wh := webhook.New(webhook.Options{Services: opts.Services, DefaultTimeout: opts.WebhookTimeout})
	wh.LoadConfig(cfg.Webhooks)
	lua := customization.New(customization.Options{})
	lua.LoadConfig(cfg.Customizations)
	bi := builtin.New(customization.Options{})
	layers, err := resourceinterpreter.Layers{Webhook: wh, Customization: lua, Builtin: bi, Native: native.New()}.Ordered(opts.Precedence)
	if err != nil {
		lua.VM().Close()
		bi.VM().Close()
		return nil, err
	}
	return &Stack{Interpreter: resourceinterpreter.New(layers...), lua: lua, builtin: bi}, nil
}

// Close releases the Lua VMs.
func (s *Stack) Close() {
	s.lua.VM().Close()
	s.builtin.VM().Close()
}
