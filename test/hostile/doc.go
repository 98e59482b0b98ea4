// Package hostile holds hostile-input probes run through the real layers:
// interpreter webhooks answering over loopback TLS, member clients built
// from Cluster objects, Lua customizations compiled and run by the real VM,
// and the scheduler estimator's gRPC server over loopback.
// Each probe is an attack observed on an earlier version; it
// asserts a clear error naming the limit or rule, bounded time and memory,
// and that the process survives to serve the next call.
package hostile
