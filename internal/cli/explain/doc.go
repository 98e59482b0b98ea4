// Package explain gathers, for one resource template, the answer of every
// stage of the propagation pipeline from the live objects of a control
// plane and its members: the policy that claimed it, the interpreter layer
// that answers each operation for its kind and what it answers, the
// scheduling result, each cluster's Work (replicas, applied overrides,
// retained fields, apply state, member object and health), the aggregated
// status, and the last events of each stage. The model (Explanation) is
// JSON-stable (schema "propel.explain/v1", documented in docs/propelctl.md);
// Text renders it as a compact tree.
//
// It only reads. Live objects do not record which interpreter layer
// answered, so Gather re-runs the interpreter stack given to it (normally
// livestack: the controller's layers with the control plane's current
// webhooks and customizations) and says so in the output. Members are read
// with the credentials of their Cluster objects, as the controller does; an
// unreachable member is reported and skipped.
package explain
