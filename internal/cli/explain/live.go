package explain

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/propel-mc/propel/internal/cli/controlplaneclient"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/livestack"
	"github.com/propel-mc/propel/internal/shared/membercluster"
)

// LiveOptions are the choices of Live.
type LiveOptions struct {
	// Precedence is the controller's --interpreter-precedence.
	Precedence resourceinterpreter.Precedence
	// MemberTimeout bounds each member request (default 5s), so that an
	// unreachable member is reported quickly.
	MemberTimeout time.Duration
}

// Live explains resource/name (namespace ignored for cluster-scoped kinds)
// from a control plane: the interpreter is the controller's stack loaded
// with the control plane's current webhooks and customizations, members
// are read with their Cluster objects' credentials.
func Live(ctx context.Context, cp *controlplaneclient.Clients, resource, name, namespace string, o LiveOptions) (*Explanation, error) {
	gvk, namespaced, err := cp.ResolveKind(resource)
	if err != nil {
		return nil, err
	}
	if !namespaced {
		namespace = ""
	}
	if o.MemberTimeout <= 0 {
		o.MemberTimeout = 5 * time.Second
	}
	live, err := livestack.Read(ctx, cp.Client)
	if err != nil {
		return nil, err
	}
	stack, err := livestack.New(live, livestack.Options{Precedence: o.Precedence, Services: cp.Client})
	if err != nil {
		return nil, err
	}
	defer stack.Close()
	precedence := o.Precedence
	if precedence == "" {
		precedence = resourceinterpreter.PrecedencePropel
	}
	members := membercluster.New(cp.Client, membercluster.Options{Timeout: o.MemberTimeout})
	return Gather(ctx, Sources{
		Client: cp.Client, Mapper: cp.Mapper, Interpreter: stack,
		InterpreterSource: fmt.Sprintf("re-run locally: %d webhook configurations, %d customizations, precedence %s", len(live.Webhooks), len(live.Customizations), precedence),
		Member: func(ctx context.Context, cluster string) (dynamic.Interface, error) {
			m, err := members.Get(ctx, cluster)
			if err != nil {
				return nil, err
			}
			return m.Dynamic, nil
		},
	}, gvk, namespace, name)
}
