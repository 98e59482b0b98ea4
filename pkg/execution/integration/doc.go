// Package integration tests the execution and status path end to end
// against real API servers (test/harness): Works applied to members,
// drift, Retain, conflict resolution, deletion, member outages, the status
// flowing back through Works and bindings into the template, and the
// number of API writes all of it costs.
package integration
