// Command interpreter-webhook-example is a resource interpreter webhook for
// the sample Workload CRD (workload.example.io/v1alpha1), built on Propel's
// webhook SDK. It serves HTTPS at /interpreter-workload, the path of
// Karmada's sample ResourceInterpreterWebhookConfiguration.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

func main() {
	var o options
	flag.StringVar(&o.bindAddress, "bind-address", "0.0.0.0", "address to listen on")
	flag.IntVar(&o.port, "port", 8445, "HTTPS port")
	flag.StringVar(&o.certFile, "cert-file", "", "serving certificate (PEM)")
	flag.StringVar(&o.keyFile, "key-file", "", "serving key (PEM)")
	klog.InitFlags(nil)
	flag.Parse()
	log.SetLogger(klog.NewKlogr())
	if o.certFile == "" || o.keyFile == "" {
		fmt.Fprintln(os.Stderr, "--cert-file and --key-file are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, o, func(addr net.Addr) { fmt.Printf("serving %s on https://%s\n", webhookPath, addr) })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
