package webhook

import (
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// TestStructuredLogging: calls log the webhook, operation and object keys.
func TestStructuredLogging(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{Verbosity: 4})
	srv, _ := sdkServer(t, answerAll)
	i := New(Options{Logger: &logger})
	if i.Name() != "webhook" {
		t.Fatalf("Name = %q", i.Name())
	}
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{config("cfg", urlHook("hook.example.io", srv.URL, srv.CA.PEM, allOps()))})
	if _, err := i.InterpretHealth(testContext(t), workload()); err != nil {
		t.Fatal(err)
	}
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{config("cfg", urlHook("hook.example.io", "https://"+closedAddr(t), srv.CA.PEM, allOps()))})
	if _, err := i.InterpretHealth(testContext(t), workload()); err == nil {
		t.Fatal("call to a closed port succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		`"msg"="called interpreter webhook" "webhook"="cfg/hook.example.io" "operation"="InterpretHealth" "kind"="Workload" "object"={"name"="nginx" "namespace"="default"}`,
		// logger.Error puts the error first.
		`"msg"="interpreter webhook call failed" "error"="Post \"https://`,
		`connect: connection refused" "webhook"="cfg/hook.example.io" "operation"="InterpretHealth"`,
		`"msg"="loaded interpreter webhook configurations" "configurations"=1 "webhooks"=1 "clients"=1`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("log lacks %s:\n%s", want, all)
		}
	}
}
