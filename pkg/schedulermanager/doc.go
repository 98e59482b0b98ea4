// Package schedulermanager assembles propel-scheduler, the scheduler as its
// own process: karmada-scheduler's flags and defaults (Lease
// karmada-scheduler, health probes on :10351, metrics on :8080), a
// controller-runtime manager with leader election, and pkg/scheduler. It is
// for operators who keep the karmada-scheduler Deployment apart from the
// controller manager (which then runs with --controllers=*,-scheduler); the
// controller manager's in-process scheduler remains the default.
package schedulermanager
