// Package estimatorwire owns the wire format of karmada-scheduler-estimator's
// gRPC interface (service
// github.com.karmada_io.karmada.pkg.estimator.service.Estimator): the
// request and response messages, their protobuf encoding written by hand
// with protowire, and a gRPC codec that carries them. The encoding is the
// bytes Karmada's generated (gogo-style) code produces: fields in ascending
// number order, proto3 zero scalars omitted, required embedded messages
// (replicaRequirements, resource) always present, map entries sorted by key
// with both key and value written, Kubernetes objects (Quantity,
// NodeSelector, Toleration) embedded as their own protobuf bytes.
//
// Decoding is for untrusted input: every repeated field and map has a
// bound (Limits), a request's elements together have bounds (Totals)
// checked on the wire before it is decoded, unknown fields are skipped,
// and malformed input is an error naming the message and field, never a
// panic.
package estimatorwire
