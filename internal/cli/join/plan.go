package join

import (
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/propel-mc/propel/pkg/apis"
)

// Plan lists the objects join creates (or unjoin deletes), in order, on
// each side. --dry-run prints it instead of acting.
type Plan struct {
	Member       []client.Object
	ControlPlane []client.Object
}

// Write prints one line per object, prefixed with where and verb, e.g.
// "member: create ServiceAccount karmada-cluster/karmada-member1".
func (p *Plan) Write(w io.Writer, verb string) error {
	for _, side := range []struct {
		where string
		objs  []client.Object
	}{{"control plane", p.ControlPlane}, {"member", p.Member}} {
		for _, o := range side.objs {
			if _, err := fmt.Fprintf(w, "%s: %s %s %s\n", side.where, verb, kindOf(o), objectName(o)); err != nil {
				return err
			}
		}
	}
	return nil
}

func kindOf(o client.Object) string {
	gvk, err := apiutil.GVKForObject(o, apis.Scheme)
	if err != nil {
		return fmt.Sprintf("%T", o)
	}
	return gvk.Kind
}

func objectName(o client.Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}
