package estimatorserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/service"
)

var _ service.EstimatorServer = &Estimator{}

// releasingSlots gives a request's slot back (releaseSlot) as soon as its
// handler returns, before the response is written.
func releasingSlots(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	defer releaseSlot(ctx)
	return handler(ctx, req)
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
		grpc.ChainUnaryInterceptor(releasingSlots),
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
	service.RegisterEstimatorServer(s, e)
	return s, nil
}
