// Package cronfederatedhpa is Karmada's cronfederatedhpa-controller
// ("cronFederatedHorizontalPodAutoscaler"): each rule of a
// CronFederatedHPA fires on its cron schedule, in its time zone, and sets
// the replicas of a resource template (through its scale subresource) or
// the bounds of a FederatedHPA, recording every execution in the status.
//
// Karmada runs one cron scheduler goroutine per rule; here the reconcile is
// the scheduler: it keeps each rule's next fire time in memory and asks to
// be called again at the earliest one. As in Karmada, fires missed while
// the controller was not running are not caught up: a rule first seen by
// this process fires at its next time after now.
package cronfederatedhpa
