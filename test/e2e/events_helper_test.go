package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/test/harness"
)

// wantEvent is an event Karmada's e2e suite looks for: its reason on an
// object of a kind, and, when set, its exact message.
type wantEvent struct {
	kind, namespace, name string
	eventType, reason     string
	message               string
}

// expectEvents waits until the control plane holds every wanted event, as
// Karmada's e2e framework waits for them (by involved object and reason).
func expectEvents(t *testing.T, want ...wantEvent) {
	t.Helper()
	for _, w := range want {
		what := fmt.Sprintf("%s %s on %s %s/%s", w.eventType, w.reason, w.kind, w.namespace, w.name)
		harness.Eventually(t, what, func(ctx context.Context) (bool, error) {
			events := &corev1.EventList{}
			if err := env.Client.List(ctx, events, client.InNamespace(w.namespace)); err != nil {
				return false, err
			}
			for _, e := range events.Items {
				o := e.InvolvedObject
				if o.Kind == w.kind && o.Name == w.name && e.Type == w.eventType && e.Reason == w.reason &&
					(w.message == "" || e.Message == w.message) {
					return true, nil
				}
			}
			return false, nil
		}, harness.Timeout(time.Minute), harness.LogsIn(env.LogDir))
	}
}
