// Package kube owns the `kube` module customization scripts require:
// resourceAdd and getResourceQuantity on quantities, and
// accuratePodRequirements and getPodDependencies, which compute from a pod
// template exactly what the native GetReplicas and GetDependencies do.
// Their results are remembered per template content (podmemo.go) and
// handed to the script as proxies that remember the Go value, so that a
// result returned untouched is not decoded again.
package kube
