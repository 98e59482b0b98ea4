package webhook

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

// connCounter serves the SDK and remembers the remote addresses (one per
// TCP connection) it has seen.
type connCounter struct {
	mu    sync.Mutex
	addrs map[string]bool
}

func (c *connCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.addrs)
}

func countingServer(t *testing.T) (*webhooktest.Server, *connCounter) {
	c := &connCounter{addrs: map[string]bool{}}
	wh := interpreter.NewWebhook(interpreter.HandlerFunc(func(_ context.Context, _ interpreter.Request) interpreter.Response {
		r := interpreter.Succeeded("")
		r.Replicas = ptr.To[int32](1)
		return r
	}), nil)
	srv := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.addrs[r.RemoteAddr] = true
		c.mu.Unlock()
		wh.ServeHTTP(w, r)
	}))
	return srv, c
}

func clientOf(t *testing.T, i *Interpreter, uid string) *hookClient {
	t.Helper()
	for _, h := range i.current.Load().hooks {
		if h.uid == uid {
			return h.client
		}
	}
	t.Fatalf("no hook %s", uid)
	return nil
}

func TestClientReuseAcrossReloads(t *testing.T) {
	srv, conns := countingServer(t)
	ctx := testContext(t)
	hookA := urlHook("a", srv.URL+"/a", srv.CA.PEM, allOps())
	hookB := urlHook("b", srv.URL+"/b", srv.CA.PEM, allOps())
	i := New(Options{})
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{config("cfg", hookA, hookB)})
	a1, b1 := clientOf(t, i, "cfg/a"), clientOf(t, i, "cfg/b")
	if a1 == b1 {
		t.Fatal("different clientConfigs share a client")
	}
	for range 3 {
		if _, _, err := i.GetReplicas(ctx, workload()); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.count(); n != 1 {
		t.Fatalf("3 calls opened %d connections, want 1 (keep-alive)", n)
	}

	// Reload with a changed rule and timeout but the same clientConfig:
	// same client, same connection.
	hookA.TimeoutSeconds = ptr.To[int32](5)
	hookA.Rules = append(hookA.Rules, allOps())
	changedB := hookB
	changedB.ClientConfig.URL = ptr.To(srv.URL + "/b2")
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{config("cfg", hookA, changedB)})
	if a2 := clientOf(t, i, "cfg/a"); a2 != a1 {
		t.Fatal("client rebuilt although clientConfig is unchanged")
	}
	if b2 := clientOf(t, i, "cfg/b"); b2 == b1 {
		t.Fatal("client kept although clientConfig.url changed")
	}
	if _, _, err := i.GetReplicas(ctx, workload()); err != nil {
		t.Fatal(err)
	}
	if n := conns.count(); n != 1 {
		t.Fatalf("call after reload opened a new connection (%d total)", n)
	}

	// A changed caBundle rebuilds the client too.
	hookA.ClientConfig.CABundle = append(append([]byte{}, srv.CA.PEM...), '\n')
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{config("cfg", hookA)})
	if a3 := clientOf(t, i, "cfg/a"); a3 == a1 {
		t.Fatal("client kept although caBundle changed")
	}
	if len(i.clients) != 1 {
		t.Fatalf("client cache holds %d clients, want 1", len(i.clients))
	}
	// Identical clientConfigs in different configurations share a client.
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{config("cfg", hookA), config("other", hookA)})
	if clientOf(t, i, "cfg/a") != clientOf(t, i, "other/a") {
		t.Fatal("identical clientConfigs got two clients")
	}
}

// TestCallsDuringReloads: calls never block on or race with reloads, and
// each sees either the old or the new configuration.
func TestCallsDuringReloads(t *testing.T) {
	srv, _ := countingServer(t)
	ctx := testContext(t)
	withRule := config("cfg", urlHook("a", srv.URL, srv.CA.PEM, allOps()))
	other := config("cfg", urlHook("a", srv.URL+"/other", srv.CA.PEM, allOps()))
	i := New(Options{})
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{withRule})
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, _, err := i.GetReplicas(ctx, workload()); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for n := range 50 {
		if n%2 == 0 {
			i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{other})
		} else {
			i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{withRule})
		}
	}
	close(done)
	wg.Wait()
}
