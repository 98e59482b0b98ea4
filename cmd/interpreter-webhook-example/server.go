package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

// webhookPath is where the sample webhook configuration points.
const webhookPath = "/interpreter-workload"

// options are the command-line flags.
type options struct {
	bindAddress string
	port        int
	certFile    string
	keyFile     string
}

// newHandler routes the interpreter webhook and a health check.
func newHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(webhookPath, interpreter.NewWebhook(&workloadInterpreter{}, interpreter.NewDecoder(newScheme())))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	return mux
}

// run serves HTTPS until ctx ends, calling listening once the socket is
// bound.
func run(ctx context.Context, o options, listening func(net.Addr)) error {
	cert, err := tls.LoadX509KeyPair(o.certFile, o.keyFile)
	if err != nil {
		return fmt.Errorf("load serving certificate: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.bindAddress, strconv.Itoa(o.port)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{
		Handler:           newHandler(),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	if listening != nil {
		listening(ln.Addr())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	err = srv.ServeTLS(ln, "", "")
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}
