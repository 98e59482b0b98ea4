package estimatorserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// requestsTotal counts the RPCs served by method and gRPC status code.
var requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "propel_scheduler_estimator_server_requests_total",
	Help: "Estimator RPCs served by method and gRPC status code.",
}, []string{"method", "code"})

// countRequests is the unary interceptor recording requestsTotal.
func countRequests(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	res, err := handler(ctx, req)
	requestsTotal.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return res, err
}

// Run serves the estimator of o.ClusterName until ctx ends.
func Run(ctx context.Context, o *Options) error {
	logger := klog.FromContext(ctx).WithName("scheduler-estimator")
	o.warnInactive(logger)
	if o.ClusterName == "" {
		return errors.New("--cluster-name is required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags(o.Master, o.Kubeconfig)
	if err != nil {
		return fmt.Errorf("load kubeconfig %q: %w", o.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = o.KubeAPIQPS, o.KubeAPIBurst
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("member client: %w", err)
	}
	est := New(o.ClusterName, kube)
	srv, err := NewGRPCServer(est, o.TLS, grpc.UnaryInterceptor(countRequests))
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(o.BindAddress, strconv.Itoa(o.ServerPort))
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(requestsTotal)
	synced := make(chan struct{})
	servers := []*http.Server{}
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
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		servers = append(servers, &http.Server{Addr: o.MetricsBindAddress, Handler: mux, ReadHeaderTimeout: 10 * time.Second})
	}
	errs := make(chan error, len(servers)+1)
	for _, s := range servers {
		go func() {
			if err := s.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs <- fmt.Errorf("serve %s: %w", s.Addr, err)
			}
		}()
	}
	if err := est.Start(ctx); err != nil {
		return err
	}
	close(synced)
	logger.Info("serving estimator", "cluster", klog.KRef("", o.ClusterName), "address", lis.Addr().String())
	go func() { errs <- srv.Serve(lis) }()
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	srv.GracefulStop()
	for _, s := range servers {
		_ = s.Close()
	}
	return err
}
