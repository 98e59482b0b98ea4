package estimatorserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/propel-mc/propel/internal/app/commandline"
)

// gracePeriod bounds how long stopping waits for requests in progress
// before cancelling them.
const gracePeriod = 10 * time.Second

// Run serves the estimator of o.ClusterName until ctx ends. It binds every
// address before serving on any, so that an address in use fails the
// start at once, and whenever it returns it has stopped everything it
// started: servers, listeners and informers.
func Run(ctx context.Context, o *Options) error {
	logger := klog.FromContext(ctx).WithName("scheduler-estimator")
	o.WarnInactive(logger)
	if o.ClusterName == "" {
		return errors.New("--cluster-name is required")
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("member client: %w", err)
	}
	var estOpts []Option
	if o.FeatureGates.Enabled(commandline.ResourceQuotaEstimate) {
		estOpts = append(estOpts, WithResourceQuotaEstimate())
	}
	est := New(o.ClusterName, kube, estOpts...)
	srv, err := NewGRPCServer(est, o.TLS, grpc.UnaryInterceptor(countRequests))
	if err != nil {
		return err
	}
	synced := make(chan struct{})
	servers := httpServers(o, synced)
	listeners, err := listen(net.JoinHostPort(o.BindAddress, strconv.Itoa(o.ServerPort)), servers)
	if err != nil {
		return err
	}
	grpcListener := listeners[len(servers)]

	ctx, cancel := context.WithCancel(ctx)
	var serving sync.WaitGroup
	errs := make(chan error, len(servers)+1)
	for i, s := range servers {
		serving.Go(func() {
			if err := s.Serve(listeners[i]); !errors.Is(err, http.ErrServerClosed) {
				errs <- fmt.Errorf("serve %s: %w", s.Addr, err)
			}
		})
	}
	stop := func() {
		stopGRPC(srv)
		_ = grpcListener.Close() // when Serve never took it
		for _, s := range servers {
			_ = s.Close()
		}
		cancel()
		est.Shutdown()
		serving.Wait()
	}
	if err := est.Start(ctx); err != nil {
		stop()
		return err
	}
	close(synced)
	logger.Info("serving estimator", "cluster", klog.KRef("", o.ClusterName), "address", grpcListener.Addr().String())
	serving.Go(func() {
		if err := srv.Serve(grpcListener); err != nil {
			errs <- fmt.Errorf("serve gRPC on %s: %w", grpcListener.Addr(), err)
		}
	})
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	stop()
	return err
}

// httpServers are the health probe and metrics servers o enables.
func httpServers(o *Options, synced <-chan struct{}) []*http.Server {
	var servers []*http.Server
	if o.HealthProbeBindAddress != "0" && o.HealthProbeBindAddress != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
		mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
			select {
			case <-synced:
				_, _ = w.Write([]byte("ok"))
			default:
				http.Error(w, "informers not synced", http.StatusServiceUnavailable)
			}
		})
		servers = append(servers, &http.Server{Addr: o.HealthProbeBindAddress, Handler: mux, ReadHeaderTimeout: 10 * time.Second})
	}
	if o.MetricsBindAddress != "0" && o.MetricsBindAddress != "" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
		servers = append(servers, &http.Server{Addr: o.MetricsBindAddress, Handler: mux, ReadHeaderTimeout: 10 * time.Second})
	}
	return servers
}

// listen binds the servers' addresses, then grpcAddr, returning the
// listeners in that order; on failure it closes those it opened.
func listen(grpcAddr string, servers []*http.Server) ([]net.Listener, error) {
	addrs := make([]string, 0, len(servers)+1)
	for _, s := range servers {
		addrs = append(addrs, s.Addr)
	}
	addrs = append(addrs, grpcAddr)
	listeners := make([]net.Listener, 0, len(addrs))
	for _, addr := range addrs {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			for _, l := range listeners {
				_ = l.Close()
			}
			return nil, fmt.Errorf("listen on %s: %w", addr, err)
		}
		listeners = append(listeners, l)
	}
	return listeners, nil
}

// stopGRPC lets the requests in progress finish for up to gracePeriod,
// then cancels them.
func stopGRPC(srv *grpc.Server) {
	done := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(gracePeriod):
		srv.Stop()
		<-done
	}
}
