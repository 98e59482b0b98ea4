// Package workapply is what the execution controller and the work-status
// controller share about applying a Work, so that neither imports the
// other:
//
//   - Ref and Refs: the identity of each manifest of a Work (its ordinal,
//     GVK, namespace and name), decoded without decoding the manifests in
//     full;
//   - Outcome: what one sync of the execution controller did (dispatching
//     suspended, per-manifest errors, the member objects it applied). The
//     execution controller hands each Outcome in memory to the Work status
//     owner (internal/pipeline/status/workstatus), which alone writes Work .status: the
//     Applied and Dispatching conditions from the Outcome and the manifest
//     statuses reflected from the applied objects, in one write.
package workapply
