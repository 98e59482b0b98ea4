// Package validation checks a binding's placement before scheduling, the
// way Karmada's policy webhook would have: label and field selectors of
// every cluster affinity (including static weights and overflow
// affinities) must parse, and spread constraints must be consistent. Each
// problem is reported as a field error naming the offending field under
// spec.placement, so that a binding that bypassed the webhook gets a
// Scheduled=False/SchedulerError condition that says what is wrong.
package validation
