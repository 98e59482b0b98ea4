// Package templatecontroller owns the template controller: a
// controller-runtime controller whose requests are resource templates
// (templatecache.Key), fed by one source per watched kind (discovery adds
// sources at runtime as CRDs appear) plus the policy index's id events. It
// matches each template against the policy index, claims it with Karmada's
// labels and annotations and creates or updates its ResourceBinding or
// ClusterResourceBinding (replicas and requirements from the resource
// interpreter).
//
// It owns these in-memory structures, each in its own file: the waiting
// list (templates no policy matched yet), the id waiters (templates whose
// policy has no permanent id yet), the own-claims memory (claims it wrote,
// so their update events are not reconciled twice), the lazy flags
// (whether every change since a template was queued touched only Karmada's
// metadata) and the interpreter failure log (rate-limited outage logging).
package templatecontroller
