package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// profileAPIServer writes a CPU profile of the API server behind cfg
// (kube-apiserver serves /debug/pprof unless --profiling=false), taken for
// seconds after delay, to path. Errors are printed, not returned: the
// profile is a diagnostic of the run, not part of it.
func profileAPIServer(ctx context.Context, cfg *rest.Config, path string, delay time.Duration, seconds int) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(delay):
	}
	kube, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: profile:", err)
		return
	}
	raw, err := kube.Discovery().RESTClient().Get().AbsPath("/debug/pprof/profile").
		Param("seconds", fmt.Sprint(seconds)).Timeout(time.Duration(seconds+30) * time.Second).DoRaw(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: profile:", err)
		return
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bench: profile:", err)
		return
	}
	fmt.Fprintf(os.Stderr, "\nbench: control-plane API server CPU profile (%d s) in %s\n", seconds, path)
}
