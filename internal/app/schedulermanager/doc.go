// Package schedulermanager assembles propel-scheduler, the scheduler as its
// own process: karmada-scheduler's flags and defaults (Lease
// karmada-scheduler, health probes on :10351, metrics on :8080), a
// controller-runtime manager with leader election, and internal/scheduling/scheduler. It is
// the image of the karmada-scheduler Deployment, beside the controller
// manager, whose '*' (Karmada's default controller set) has no scheduler.
// The controller manager's in-process scheduler (--controllers=*,scheduler)
// takes the same Lease, so only one of them schedules at a time.
package schedulermanager
