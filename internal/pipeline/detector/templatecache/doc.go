// Package templatecache owns the detector's template cache: one dynamic
// informer per served kind that may be propagated (found by discovery,
// filtered by the skip list), each holding templates in their compact form
// (Template: JSON plus the metadata and change digests the detector reads
// without decoding), and the reads and writes of templates the template
// controller, policy controller and preemption share (Lookup, Get, Update,
// ListClaimed). It does not decide what to do with a template: the template
// controller registers its event sources on the informers this package
// creates.
package templatecache
