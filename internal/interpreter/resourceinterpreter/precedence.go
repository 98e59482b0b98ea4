package resourceinterpreter

import (
	"fmt"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
)

// Precedence chooses the order of the webhook and Lua customization layers.
type Precedence string

const (
	// PrecedencePropel consults customized webhooks before Lua
	// customizations: a webhook is an explicit, operator-run service, so it
	// outranks a script. This is Propel's default.
	PrecedencePropel Precedence = "propel"
	// PrecedenceKarmada is Karmada's order: Lua customizations before
	// webhooks.
	PrecedenceKarmada Precedence = "karmada"
)

// Layers are the four layers of the interpreter; Builtin may be nil.
type Layers struct {
	Webhook, Customization, Builtin, Native layer.Layer
}

// Ordered returns the layers in the order precedence fixes, the native
// layer last as the fallback.
func (l Layers) Ordered(p Precedence) ([]layer.Layer, error) {
	var order []layer.Layer
	switch p {
	case PrecedencePropel, "":
		order = []layer.Layer{l.Webhook, l.Customization, l.Builtin, l.Native}
	case PrecedenceKarmada:
		order = []layer.Layer{l.Customization, l.Webhook, l.Builtin, l.Native}
	default:
		return nil, fmt.Errorf("unknown interpreter precedence %q (want %q or %q)", p, PrecedencePropel, PrecedenceKarmada)
	}
	out := order[:0]
	for _, x := range order {
		if x != nil {
			out = append(out, x)
		}
	}
	if len(out) == 0 || out[len(out)-1] != l.Native {
		return nil, fmt.Errorf("the native layer is required as the fallback")
	}
	return out, nil
}
