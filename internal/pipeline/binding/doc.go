// Package binding owns the binding controllers (Karmada's
// binding-controller and cluster-resource-binding-controller): each
// scheduled ResourceBinding or ClusterResourceBinding becomes one Work per
// target cluster in that cluster's execution namespace, holding the
// resource template after replica revision, Job completions split,
// overrides (package overrides) and pruning, with Karmada's names, labels
// and annotations so that Works written by Karmada are adopted without a
// write. It also deletes the Works of clusters that are no longer targets
// and, when a binding is deleted, all of its Works before releasing the
// binding's finalizer.
//
// A reconcile is a short sequence of named phases (delete, remove orphans,
// wait for direct purges, fetch the template, render, write); the
// user-facing record is events on the binding and its template.
package binding
