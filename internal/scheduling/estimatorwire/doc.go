// Package estimatorwire owns the wire interface of
// karmada-scheduler-estimator (gRPC service
// github.com.karmada_io.karmada.pkg.estimator.service.Estimator): its
// .proto files, the Go code generated from them (package pb for the
// messages, package service for the gRPC client and server; `make
// generate` reproduces it) and the gRPC codec both sides use. The proto
// package, message names and field numbers are Karmada's, so the bytes are
// those Karmada's scheduler and estimator exchange: fields in ascending
// number order, map entries sorted by key (the codec marshals
// deterministically), Kubernetes objects (Quantity, NodeSelector,
// Toleration) embedded as their own protobuf bytes. Karmada always writes
// the required embedded messages (replicaRequirements, resource); Propel's
// client sets them so that it does too. A caller sending one request to
// many estimators encodes what they share once (SharedRequest) and hands
// the codec each one's bytes (Encoded), which it writes as they are.
//
// Decoding is for untrusted input: before the generated code decodes a
// request, the codec scans its bytes and refuses it when a list or map is
// over its limit (Limits) or the request's elements together are over the
// totals (Totals); unknown fields are kept, not interpreted, and malformed
// input is an error naming the message, never a panic.
package estimatorwire
