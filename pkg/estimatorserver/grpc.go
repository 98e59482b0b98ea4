package estimatorserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/propel-mc/propel/pkg/estimatorwire"
)

// service is the estimator's RPC surface; the ServiceDesc below dispatches
// to it.
type service interface {
	MaxAvailableReplicas(context.Context, *estimatorwire.MaxAvailableReplicasRequest) (*estimatorwire.MaxAvailableReplicasResponse, error)
	MaxAvailableComponentSets(context.Context, *estimatorwire.MaxAvailableComponentSetsRequest) (*estimatorwire.MaxAvailableComponentSetsResponse, error)
	GetUnschedulableReplicas(context.Context, *estimatorwire.UnschedulableReplicasRequest) (*estimatorwire.UnschedulableReplicasResponse, error)
}

var _ service = &Estimator{}

// unary adapts one typed method to a grpc.MethodDesc handler.
func unary[Req any, Res any, PReq interface {
	*Req
	estimatorwire.Message
}](fullMethod string, call func(service, context.Context, PReq) (Res, error)) grpc.MethodHandler {
	return func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
		defer releaseSlot(ctx)
		in := PReq(new(Req))
		if err := dec(in); err != nil {
			return nil, err
		}
		if interceptor == nil {
			return call(srv.(service), ctx, in)
		}
		info := &grpc.UnaryServerInfo{Server: srv, FullMethod: fullMethod}
		return interceptor(ctx, in, info, func(ctx context.Context, req any) (any, error) {
			return call(srv.(service), ctx, req.(PReq))
		})
	}
}

var serviceDesc = grpc.ServiceDesc{
	ServiceName: estimatorwire.ServiceName,
	HandlerType: (*service)(nil),
	Methods: []grpc.MethodDesc{
		{MethodName: "MaxAvailableReplicas", Handler: unary(estimatorwire.MethodMaxAvailableReplicas, service.MaxAvailableReplicas)},
		{MethodName: "MaxAvailableComponentSets", Handler: unary(estimatorwire.MethodMaxAvailableComponentSets, service.MaxAvailableComponentSets)},
		{MethodName: "GetUnschedulableReplicas", Handler: unary(estimatorwire.MethodGetUnschedulableReplicas, service.GetUnschedulableReplicas)},
	},
	Metadata: "pkg/estimator/service/service.proto",
}

// TLSFiles are the server's certificate and the CA that verifies clients.
type TLSFiles struct {
	CertFile, KeyFile string
	// ClientCAFile requires and verifies client certificates unless
	// InsecureSkipClientVerify.
	ClientCAFile             string
	InsecureSkipClientVerify bool
}

// NewGRPCServer returns a gRPC server with e registered: the estimator
// codec, MaxMessageSize for requests, at most MaxConcurrentRequests
// requests at once, and TLS when files.CertFile is set.
func NewGRPCServer(e *Estimator, files TLSFiles, extra ...grpc.ServerOption) (*grpc.Server, error) {
	return newGRPCServer(e, files, MaxConcurrentRequests, extra...)
}

func newGRPCServer(e *Estimator, files TLSFiles, concurrent int, extra ...grpc.ServerOption) (*grpc.Server, error) {
	opts := []grpc.ServerOption{
		grpc.ForceServerCodec(estimatorwire.Codec{}),
		grpc.MaxRecvMsgSize(estimatorwire.MaxMessageSize),
		grpc.MaxConcurrentStreams(1000),
		grpc.InTapHandle(newRequestSlots(concurrent).admit),
	}
	if files.CertFile != "" || files.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(files.CertFile, files.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load --grpc-auth-cert-file/--grpc-auth-key-file: %w", err)
		}
		cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		if files.ClientCAFile != "" && !files.InsecureSkipClientVerify {
			pem, err := os.ReadFile(files.ClientCAFile)
			if err != nil {
				return nil, fmt.Errorf("read --grpc-client-ca-file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--grpc-client-ca-file %s: no PEM certificate", files.ClientCAFile)
			}
			cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg)))
	}
	s := grpc.NewServer(append(opts, extra...)...)
	s.RegisterService(&serviceDesc, e)
	return s, nil
}
