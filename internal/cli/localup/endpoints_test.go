package localup

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakedynamic "k8s.io/client-go/dynamic/fake"

	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/cli/localenv"
)

// TestServingOfTurnsBindAddressesIntoURLs: an empty or unspecified host is
// reached on 127.0.0.1, "0" is off, pprof only when enabled, metrics over
// HTTPS when secure.
func TestServingOfTurnsBindAddressesIntoURLs(t *testing.T) {
	got := servingOf(managerbase.Serving{MetricsBindAddress: ":8080", HealthProbeBindAddress: "0.0.0.0:10357", ProfilingBindAddress: "127.0.0.1:6060"})
	want := Serving{Metrics: "http://127.0.0.1:8080/metrics", Healthz: "http://127.0.0.1:10357/healthz", Readyz: "http://127.0.0.1:10357/readyz"}
	if got != want {
		t.Errorf("servingOf = %+v, want %+v", got, want)
	}
	got = servingOf(managerbase.Serving{MetricsBindAddress: "127.0.0.1:8081", MetricsSecure: true, HealthProbeBindAddress: "0", EnablePprof: true, ProfilingBindAddress: ":6061"})
	want = Serving{Metrics: "https://127.0.0.1:8081/metrics", Pprof: "http://127.0.0.1:6061/debug/pprof/"}
	if got != want {
		t.Errorf("servingOf = %+v, want %+v", got, want)
	}
}

// TestLocalAddressKeepsAFreePortAndFallsBackWhenTaken.
func TestLocalAddressKeepsAFreePortAndFallsBackWhenTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	taken := l.Addr().(*net.TCPAddr).Port
	var out bytes.Buffer
	addr, err := localAddress(&out, "scheduler metrics", taken)
	if err != nil {
		t.Fatal(err)
	}
	if addr == "127.0.0.1:"+strconv.Itoa(taken) || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("taken port %d gave %s", taken, addr)
	}
	if !strings.Contains(out.String(), "port "+strconv.Itoa(taken)+" for the scheduler metrics is taken; using ") {
		t.Errorf("fallback not said: %q", out.String())
	}
	l.Close()
	out.Reset()
	if addr, _ = localAddress(&out, "scheduler metrics", taken); addr != "127.0.0.1:"+strconv.Itoa(taken) {
		t.Errorf("free port %d gave %s", taken, addr)
	}
	if out.Len() != 0 {
		t.Errorf("a free port printed %q", out.String())
	}
	if addr, _ = localAddress(&out, "x", 0); addr != "0" {
		t.Errorf("port 0 gave %q, want off", addr)
	}
}

// TestEndpointsPrintAndFileRoundTrip: every endpoint is printed and the
// file written in the state directory reads back the same.
func TestEndpointsPrintAndFileRoundTrip(t *testing.T) {
	ep := &Endpoints{
		ControlPlane:      APIServerEndpoint{Name: "karmada", URL: "https://127.0.0.1:30000", Kubeconfig: "/s/karmada.kubeconfig"},
		Members:           []APIServerEndpoint{{Name: "member1", URL: "https://127.0.0.1:30001", Kubeconfig: "/s/member1.kubeconfig"}},
		SuiteKubeconfig:   "/s/karmada.config",
		MembersKubeconfig: "/s/members.config",
		ControllerManager: Serving{Metrics: "http://127.0.0.1:8080/metrics", Healthz: "http://127.0.0.1:10357/healthz", Readyz: "http://127.0.0.1:10357/readyz"},
		Scheduler:         &Serving{Metrics: "http://127.0.0.1:8081/metrics", Healthz: "http://127.0.0.1:10351/healthz", Readyz: "http://127.0.0.1:10351/readyz", Pprof: "http://127.0.0.1:6061/debug/pprof/"},
		ExampleWebhook:    "https://127.0.0.1:30002",
		Karmada:           map[string]string{"karmada-webhook": "https://127.0.0.1:30003"},
		Logs:              "/s/logs",
	}
	var out bytes.Buffer
	ep.Print(&out)
	for _, want := range []string{
		"control plane https://127.0.0.1:30000  kubeconfig /s/karmada.kubeconfig",
		"member1       https://127.0.0.1:30001  kubeconfig /s/member1.kubeconfig",
		"/s/karmada.config (contexts karmada-apiserver, karmada-host), /s/members.config",
		"propel-controller-manager:\n    metrics  http://127.0.0.1:8080/metrics\n    healthz  http://127.0.0.1:10357/healthz\n    readyz   http://127.0.0.1:10357/readyz\n    pprof    off\n",
		"propel-scheduler:\n    metrics  http://127.0.0.1:8081/metrics",
		"pprof    http://127.0.0.1:6061/debug/pprof/",
		"interpreter-webhook-example: https://127.0.0.1:30002",
		"karmada-webhook: https://127.0.0.1:30003",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed endpoints lack %q:\n%s", want, out.String())
		}
	}
	dir := t.TempDir()
	if err := ep.write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadEndpoints(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Scheduler == nil || *back.Scheduler != *ep.Scheduler || back.ControllerManager != ep.ControllerManager || back.Members[0] != ep.Members[0] || back.ExampleWebhook != ep.ExampleWebhook {
		t.Errorf("read back %+v, want %+v", back, ep)
	}
}

// TestWaitListeningNamesAProcessThatExitsWithItsLogTail: a component that
// dies before it listens fails the start with its name and its last words.
func TestWaitListeningNamesAProcessThatExitsWithItsLogTail(t *testing.T) {
	p, err := localenv.StartProcess("karmada-webhook", "/bin/sh", []string{"-c", "echo boom; exit 1"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	var out bytes.Buffer
	err = waitListening(context.Background(), localenv.NewProgress(&out, time.Now), p, 1)
	if err == nil {
		t.Fatal("an exited process was reported listening")
	}
	for _, want := range []string{"karmada-webhook exited while waiting for it to listen on 127.0.0.1:1", p.LogPath, "\n    boom"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(out.String(), "ready") {
		t.Errorf("progress says ready: %q", out.String())
	}
}

// TestWaitAPIServicesAvailableNamesTheAPIServiceAndTheLogTail: an
// aggregated API that never becomes Available fails the start, before any
// member joins, with the APIService, its condition and the server's log.
func TestWaitAPIServicesAvailableNamesTheAPIServiceAndTheLogTail(t *testing.T) {
	p, err := localenv.StartProcess("karmada-aggregated-apiserver", "/bin/sh", []string{"-c", "echo etcd unreachable; sleep 60"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	notAvailable := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]interface{}{"name": "v1alpha1.cluster.karmada.io"},
		"status": map[string]interface{}{"conditions": []interface{}{map[string]interface{}{
			"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck", "message": "failing or missing response"}}},
	}}
	dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}: "APIServiceList"}, notAvailable)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var out bytes.Buffer
	// The log line must be written before the wait gives up.
	if err := p.WaitUntil(ctx, "its log", func(context.Context) error {
		lines, err := localenv.TailFile(p.LogPath, 1, 1<<10)
		if err == nil && len(lines) == 0 {
			err = errors.New("empty log")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	err = waitAPIServicesAvailable(ctx, localenv.NewProgress(&out, time.Now), p, dyn,
		[]localenv.AggregatedAPI{{Group: "cluster.karmada.io", Version: "v1alpha1"}})
	if err == nil {
		t.Fatal("an APIService that is not Available was reported available")
	}
	for _, want := range []string{"timed out waiting for APIService v1alpha1.cluster.karmada.io to be Available", "FailedDiscoveryCheck: failing or missing response", p.LogPath, "\n    etcd unreachable"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(out.String(), "available") {
		t.Errorf("progress says available: %q", out.String())
	}
}
