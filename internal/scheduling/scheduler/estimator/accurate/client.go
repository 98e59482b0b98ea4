package accurate

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/service"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: the estimators are found through their Services.
// +kubebuilder:rbac:groups=core,resources=services,verbs=get

const (
	// resolveEvery is how long a resolved estimator address is used before
	// the Service is read again (it may have changed).
	resolveEvery = 30 * time.Second
	// retryUnresolved is how long a cluster without an estimator Service
	// is not asked again: a decision must not cost an API read per cluster.
	retryUnresolved = 5 * time.Second
)

// Estimator asks the accurate estimators. It implements
// estimator.BatchEstimator and is safe for concurrent use.
type Estimator struct {
	opts   Options
	reader client.Reader
	logger logr.Logger
	now    func() time.Time

	mu      sync.Mutex
	targets map[string]*target
	closed  bool
	// assumedOverLimit logs, once, that a request could not carry every
	// assumed workload.
	assumedOverLimit sync.Once
}

// target is one cluster's estimator: its resolved address and connection.
type target struct {
	mu       sync.Mutex
	addr     string
	conn     *grpc.ClientConn
	err      error
	resolved time.Time
	// failing is set while calls fail, so that only changes are logged.
	failing bool
}

var _ estimator.BatchEstimator = &Estimator{}

// New returns the estimator client for opts; reader reads the estimator
// Services of the control plane (an uncached reader: one read per cluster
// every resolveEvery). The TLS files are read when a connection is made,
// as Karmada does: missing files make the estimators fail (and be
// ignored), not the scheduler.
func New(opts Options, reader client.Reader, logger logr.Logger) *Estimator {
	if opts.Timeout <= 0 {
		opts.Timeout = NewOptions().Timeout
	}
	return &Estimator{opts: opts, reader: reader, logger: logger, now: time.Now, targets: map[string]*target{}}
}

// transportCredentials is plain text unless a CA file or skip-verify is
// given, as in Karmada; a client certificate is added when both files are.
func transportCredentials(o Options) (credentials.TransportCredentials, error) {
	if o.CAFile == "" && !o.InsecureSkipVerify {
		return insecure.NewCredentials(), nil
	}
	//nolint:gosec // InsecureSkipVerify is the operator's explicit --insecure-skip-estimator-verify
	cfg := &tls.Config{InsecureSkipVerify: o.InsecureSkipVerify, MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read --scheduler-estimator-ca-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--scheduler-estimator-ca-file %s: no PEM certificate", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	if o.CertFile != "" && o.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load --scheduler-estimator-cert-file/--scheduler-estimator-key-file: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return credentials.NewTLS(cfg), nil
}

// Start implements manager.Runnable: it closes the connections when ctx
// ends. The estimator works before Start too.
func (e *Estimator) Start(ctx context.Context) error {
	<-ctx.Done()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for _, t := range e.targets {
		t.mu.Lock()
		if t.conn != nil {
			_ = t.conn.Close()
			t.conn = nil
		}
		t.mu.Unlock()
	}
	return nil
}

// EstimateClusters implements estimator.BatchEstimator: the replicas (or,
// for a binding with components, the component sets) each cluster's
// estimator can hold, asked concurrently under one timeout, with the
// workloads assumed on that cluster when assumed is not nil;
// UnauthenticReplica where there is no answer. The request is encoded
// once; each cluster's differs only by its name and the workloads assumed
// there, its last fields (estimate).
func (e *Estimator) EstimateClusters(clusters []*clusterv1alpha1.Cluster, spec *workv1alpha2.ResourceBindingSpec, assumed estimator.Assumptions) []int64 {
	out := make([]int64, len(clusters))
	for i := range out {
		out[i] = estimator.UnauthenticReplica
	}
	var req estimateRequest
	var err error
	if len(spec.Components) > 0 {
		req, err = componentSetsRequest(spec.Resource.Namespace, spec.Components)
	} else {
		req, err = replicasRequest(spec.ReplicaRequirements)
	}
	if err != nil {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.Timeout)
	defer cancel()
	// Karmada names the object in the call's metadata for the estimator's logs.
	ctx = metadata.AppendToOutgoingContext(ctx, "object", fmt.Sprintf("kind=%s, name=%s/%s", spec.Resource.Kind, spec.Resource.Namespace, spec.Resource.Name))
	var wg sync.WaitGroup
	for i, c := range clusters {
		if e.opts.DisableInPullMode && c.Spec.SyncMode == clusterv1alpha1.Pull {
			continue
		}
		var onCluster []estimator.AssumedWorkload
		if assumed != nil {
			onCluster = assumed.AssumedWorkloads(c.Name)
		}
		wg.Go(func() {
			if n, err := e.estimate(ctx, c.Name, req, onCluster); err == nil {
				out[i] = int64(n)
			}
		})
	}
	wg.Wait()
	return out
}

// estimateRequest is an estimate request encoded once for every cluster
// of a decision.
type estimateRequest struct {
	// componentSets tells a MaxAvailableComponentSets request from a
	// MaxAvailableReplicas one.
	componentSets bool
	// ownComponents is the number of components the request carries
	// itself, which the assumed workloads' share of a request's limit
	// leaves out.
	ownComponents int
	shared        estimatorwire.SharedRequest
}

// replicasRequest is the MaxAvailableReplicas request for rr.
func replicasRequest(rr *workv1alpha2.ReplicaRequirements) (estimateRequest, error) {
	reqs, err := replicaRequirements(rr)
	if err != nil {
		return estimateRequest{}, err
	}
	shared, err := estimatorwire.EncodeShared(&pb.MaxAvailableReplicasRequest{ReplicaRequirements: reqs})
	return estimateRequest{shared: shared}, err
}

// componentSetsRequest is the MaxAvailableComponentSets request for the
// components cs in namespace.
func componentSetsRequest(namespace string, cs []workv1alpha2.Component) (estimateRequest, error) {
	comps, err := components(cs)
	if err != nil {
		return estimateRequest{}, err
	}
	shared, err := estimatorwire.EncodeShared(&pb.MaxAvailableComponentSetsRequest{Namespace: namespace, Components: comps})
	return estimateRequest{componentSets: true, ownComponents: len(comps), shared: shared}, err
}

// estimate sends req to cluster's estimator, with the workloads assumed
// there (newest first), and returns its answer.
func (e *Estimator) estimate(ctx context.Context, cluster string, req estimateRequest, assumed []estimator.AssumedWorkload) (int32, error) {
	onCluster, err := e.assumedWorkloads(cluster, assumed, req.ownComponents)
	if err != nil {
		return 0, err
	}
	msg, err := estimatorwire.WithAssumed(req.shared.For(cluster), req.componentSets, onCluster)
	if err != nil {
		return 0, fmt.Errorf("estimate on cluster %s: %w", cluster, err)
	}
	if req.componentSets {
		var res pb.MaxAvailableComponentSetsResponse
		err = e.call(ctx, cluster, "MaxAvailableComponentSets", func(conn grpc.ClientConnInterface) error {
			return conn.Invoke(ctx, service.Estimator_MaxAvailableComponentSets_FullMethodName, msg, &res, grpc.StaticMethod())
		})
		return res.GetMaxSets(), err
	}
	var res pb.MaxAvailableReplicasResponse
	err = e.call(ctx, cluster, "MaxAvailableReplicas", func(conn grpc.ClientConnInterface) error {
		return conn.Invoke(ctx, service.Estimator_MaxAvailableReplicas_FullMethodName, msg, &res, grpc.StaticMethod())
	})
	return res.GetMaxReplicas(), err
}

// MaxAvailableReplicas asks cluster's estimator how many replicas needing
// rr it can hold besides the assumed workloads (newest first).
func (e *Estimator) MaxAvailableReplicas(ctx context.Context, cluster string, rr *workv1alpha2.ReplicaRequirements, assumed ...estimator.AssumedWorkload) (int32, error) {
	req, err := replicasRequest(rr)
	if err != nil {
		return 0, err
	}
	return e.estimate(ctx, cluster, req, assumed)
}

// MaxAvailableComponentSets asks cluster's estimator how many complete
// sets of components it can hold besides the assumed workloads (newest
// first).
func (e *Estimator) MaxAvailableComponentSets(ctx context.Context, cluster, namespace string, cs []workv1alpha2.Component, assumed ...estimator.AssumedWorkload) (int32, error) {
	req, err := componentSetsRequest(namespace, cs)
	if err != nil {
		return 0, err
	}
	return e.estimate(ctx, cluster, req, assumed)
}

// assumedWorkloads converts the workloads assumed on cluster for a request
// with ownComponents components, logging the first time some must be left
// out.
func (e *Estimator) assumedWorkloads(cluster string, assumed []estimator.AssumedWorkload, ownComponents int) ([]*pb.AssumedWorkload, error) {
	if len(assumed) == 0 {
		return nil, nil
	}
	out, left, err := convertAssumed(assumed, ownComponents)
	if err != nil {
		return nil, fmt.Errorf("estimate on cluster %s: %w", cluster, err)
	}
	if left > 0 {
		e.assumedOverLimit.Do(func() {
			e.logger.Info("more assumed workloads than an estimator request holds; the oldest are not sent (logged once)",
				"cluster", klog.KRef("", cluster), "sent", len(out), "left", left)
		})
	}
	return out, nil
}

// GetUnschedulableReplicas asks cluster's estimator how many replicas of
// the workload have been unschedulable for longer than threshold.
func (e *Estimator) GetUnschedulableReplicas(ctx context.Context, cluster string, ref *pb.ObjectReference, threshold time.Duration) (int32, error) {
	if ref == nil {
		// The resource is a required field: it is written even when empty.
		ref = &pb.ObjectReference{}
	}
	req := &pb.UnschedulableReplicasRequest{Cluster: cluster, Resource: ref, UnschedulableThreshold: int64(threshold)}
	var res *pb.UnschedulableReplicasResponse
	err := e.call(ctx, cluster, "GetUnschedulableReplicas", func(conn grpc.ClientConnInterface) (err error) {
		res, err = service.NewEstimatorClient(conn).GetUnschedulableReplicas(ctx, req)
		return err
	})
	return res.GetUnschedulableReplicas(), err
}

// call runs invoke, one RPC named method, on cluster's estimator,
// recording the metrics and logging when the estimator starts or stops
// failing.
func (e *Estimator) call(ctx context.Context, cluster, method string, invoke func(grpc.ClientConnInterface) error) error {
	t, conn, err := e.connection(ctx, cluster)
	if err != nil {
		callsTotal.WithLabelValues(method, "unresolved").Inc()
		return err
	}
	start := e.now()
	err = invoke(conn)
	callDuration.WithLabelValues(method).Observe(e.now().Sub(start).Seconds())
	if err != nil {
		err = fmt.Errorf("estimator of cluster %s at %s: %s: %w", cluster, t.addr, method, err)
		callsTotal.WithLabelValues(method, "error").Inc()
	} else {
		callsTotal.WithLabelValues(method, "success").Inc()
	}
	e.noteResult(t, cluster, err)
	return err
}

// noteResult logs the transitions between answering and failing, and
// every failure at verbosity 4.
func (e *Estimator) noteResult(t *target, cluster string, err error) {
	t.mu.Lock()
	was := t.failing
	t.failing = err != nil
	t.mu.Unlock()
	switch {
	case err != nil && !was:
		e.logger.Error(err, "accurate estimator failed, its cluster is estimated without it until it answers", "cluster", klog.KRef("", cluster))
	case err != nil:
		e.logger.V(4).Info("accurate estimator failed", "cluster", klog.KRef("", cluster), "error", err.Error())
	case was:
		e.logger.Info("accurate estimator answers again", "cluster", klog.KRef("", cluster))
	}
}

// connection returns cluster's target and connection, resolving the
// estimator Service when the last resolution is too old.
func (e *Estimator) connection(ctx context.Context, cluster string) (*target, *grpc.ClientConn, error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, nil, fmt.Errorf("estimator client stopped")
	}
	t, ok := e.targets[cluster]
	if !ok {
		t = &target{}
		e.targets[cluster] = t
	}
	e.mu.Unlock()

	t.mu.Lock()
	defer t.mu.Unlock()
	ttl := resolveEvery
	if t.err != nil {
		ttl = retryUnresolved
	}
	if !t.resolved.IsZero() && e.now().Sub(t.resolved) < ttl {
		return t, t.conn, t.err
	}
	addr, err := e.resolve(ctx, cluster)
	t.resolved = e.now()
	if err != nil {
		if t.err == nil {
			e.logger.Error(err, "no accurate estimator for cluster, using the general estimator only", "cluster", klog.KRef("", cluster))
		}
		t.err = err
		return t, nil, err
	}
	if t.err != nil {
		e.logger.Info("accurate estimator found", "cluster", klog.KRef("", cluster), "address", addr)
	}
	t.err = nil
	if addr == t.addr && t.conn != nil {
		return t, t.conn, nil
	}
	if t.conn != nil {
		_ = t.conn.Close()
		t.conn = nil
	}
	creds, err := transportCredentials(e.opts)
	if err != nil {
		t.err = fmt.Errorf("estimator of cluster %s: %w", cluster, err)
		e.logger.Error(err, "cannot connect to the accurate estimator", "cluster", klog.KRef("", cluster))
		return t, nil, t.err
	}
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(estimatorwire.Codec{}), grpc.MaxCallRecvMsgSize(estimatorwire.MaxMessageSize)))
	if err != nil {
		t.err = fmt.Errorf("connect to the estimator of cluster %s at %s: %w", cluster, addr, err)
		return t, nil, t.err
	}
	t.addr, t.conn = addr, conn
	return t, conn, nil
}

// resolve finds cluster's estimator address as Karmada does: the Service
// <prefix>-<cluster> in the estimator namespace. An ExternalName Service
// points at its external name, on the numeric target port of its port
// numbered --scheduler-estimator-port (on that port itself when it lists
// no ports; an error when it lists others or the target is named); any
// other Service at its cluster DNS name on --scheduler-estimator-port.
func (e *Estimator) resolve(ctx context.Context, cluster string) (string, error) {
	key := types.NamespacedName{Namespace: e.opts.ServiceNamespace, Name: e.opts.ServicePrefix + "-" + cluster}
	var svc corev1.Service
	if err := e.reader.Get(ctx, key, &svc); err != nil {
		return "", fmt.Errorf("estimator Service %s of cluster %s: %w", key, cluster, err)
	}
	if svc.Spec.Type != corev1.ServiceTypeExternalName || svc.Spec.ExternalName == "" {
		return net.JoinHostPort(fmt.Sprintf("%s.%s.svc.cluster.local", svc.Name, svc.Namespace), strconv.Itoa(e.opts.Port)), nil
	}
	if len(svc.Spec.Ports) == 0 {
		return net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(e.opts.Port)), nil
	}
	for _, p := range svc.Spec.Ports {
		if int(p.Port) != e.opts.Port {
			continue
		}
		if p.TargetPort.Type != intstr.Int {
			return "", fmt.Errorf("estimator Service %s of cluster %s: port %d: an ExternalName Service needs a numeric targetPort, not %q", key, cluster, p.Port, p.TargetPort.String())
		}
		port := p.TargetPort.IntValue()
		if port == 0 {
			port = e.opts.Port
		}
		return net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(port)), nil
	}
	return "", fmt.Errorf("estimator Service %s of cluster %s: no port %d", key, cluster, e.opts.Port)
}
