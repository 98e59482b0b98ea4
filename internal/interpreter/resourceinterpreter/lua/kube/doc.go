// Package kube owns the `kube` module customization scripts require:
// resourceAdd and getResourceQuantity on quantities, and
// accuratePodRequirements and getPodDependencies, which compute from a pod
// template exactly what the native GetReplicas and GetDependencies do.
// A template passed straight from the script's argument is read in place
// (inplace.go); any other is converted through its canonical JSON, whose
// results are remembered per content (podmemo.go). Results are handed to
// the script as proxies that remember the Go value and build their Lua
// form only when read, so that a result returned untouched is neither
// converted nor decoded again.
package kube
