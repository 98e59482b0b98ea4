package replay

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/propel-mc/propel/internal/cli/controlplaneclient"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/livestack"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Candidate is the configuration to try: customizations (from a file) or
// a webhook URL.
type Candidate struct {
	Customizations []configv1alpha1.ResourceInterpreterCustomization
	// WebhookURL, with Kind, tries a webhook for every operation of Kind
	// (or Operations when set).
	WebhookURL string
	CABundle   []byte
	Operations []configv1alpha1.InterpreterOperation
	// Kind limits the replay to one target kind (required with WebhookURL).
	Kind string
}

// LiveOptions are the choices of Live.
type LiveOptions struct {
	Options
	Precedence    resourceinterpreter.Precedence
	MemberTimeout time.Duration
}

// Live replays c against a control plane: the active configuration is
// the control plane's webhooks and customizations, the candidate the same
// with c's customizations replacing those of the same name (or c's webhook
// added).
func Live(ctx context.Context, cp *controlplaneclient.Clients, c Candidate, o LiveOptions) (*Report, error) {
	live, err := livestack.Read(ctx, cp.Client)
	if err != nil {
		return nil, err
	}
	var targets []Target
	next := live
	switch {
	case c.WebhookURL != "":
		if c.Kind == "" {
			return nil, errors.New("a webhook URL needs --kind")
		}
		gvk, _, err := cp.ResolveKind(c.Kind)
		if err != nil {
			return nil, err
		}
		ops := c.Operations
		if len(ops) == 0 {
			ops = customization.Operations()
		}
		targets = []Target{{GVK: gvk, Operations: ops}}
		next = live.WithWebhooks([]configv1alpha1.ResourceInterpreterWebhookConfiguration{WebhookCandidate(c.WebhookURL, c.CABundle, gvk, ops)})
	default:
		if targets, err = TargetsOf(c.Customizations, c.Kind); err != nil {
			return nil, err
		}
		next = live.WithCustomizations(c.Customizations)
	}
	lopts := livestack.Options{Precedence: o.Precedence, Services: cp.Client}
	active, err := livestack.New(live, lopts)
	if err != nil {
		return nil, err
	}
	defer active.Close()
	candidate, err := livestack.New(next, lopts)
	if err != nil {
		return nil, err
	}
	defer candidate.Close()
	if o.MemberTimeout <= 0 {
		o.MemberTimeout = 5 * time.Second
	}
	members := membercluster.New(cp.Client, membercluster.Options{Timeout: o.MemberTimeout})
	return Run(ctx, Sources{
		Client: cp.Client, Mapper: cp.Mapper,
		Member: func(ctx context.Context, cluster string) (dynamic.Interface, error) {
			m, err := members.Get(ctx, cluster)
			if err != nil {
				return nil, err
			}
			return m.Dynamic, nil
		},
	}, active, candidate, targets, o.Options)
}
