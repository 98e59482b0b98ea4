package controllermanager

import "github.com/propel-mc/propel/internal/app/commandline"

// inactiveFlags are karmada-controller-manager's flags that Propel accepts
// with Karmada's types and defaults but does not act on (yet). Every other
// Karmada flag is implemented in options.go or is a logging flag
// (internal/app/commandline); TestAcceptsEveryKarmadaFlag checks the union against
// Karmada's flag list.
var inactiveFlags = []commandline.Flag{
	{Name: "cluster-api-context", Type: "string"},
	{Name: "cluster-api-kubeconfig", Type: "string"},
	{Name: "concurrent-cluster-propagation-policy-syncs", Type: "int", Default: "1"},
	{Name: "concurrent-propagation-policy-syncs", Type: "int", Default: "1"},
	{Name: "horizontal-pod-autoscaler-downscale-delay", Type: "duration", Default: "5m0s"},
	{Name: "horizontal-pod-autoscaler-upscale-delay", Type: "duration", Default: "3m0s"},
	{Name: "rate-limiter-base-delay", Type: "duration", Default: "5ms"},
	{Name: "rate-limiter-bucket-size", Type: "int", Default: "100"},
	{Name: "rate-limiter-max-delay", Type: "duration", Default: "16m40s"},
	{Name: "rate-limiter-qps", Type: "int", Default: "10"},
	{Name: "resync-period", Type: "duration"},
}
