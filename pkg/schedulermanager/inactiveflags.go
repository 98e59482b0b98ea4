package schedulermanager

import "github.com/propel-mc/propel/pkg/commandline"

// inactiveFlags are karmada-scheduler's flags that propel-scheduler accepts
// with Karmada's types and defaults but does not act on (yet).
// TestAcceptsEveryKarmadaFlag checks all flags against Karmada's list.
var inactiveFlags = []commandline.Flag{
	{Name: "disable-scheduler-estimator-in-pull-mode", Type: "bool"},
	{Name: "enable-scheduler-estimator", Type: "bool"},
	{Name: "insecure-skip-estimator-verify", Type: "bool"},
	{Name: "scheduler-estimator-ca-file", Type: "string"},
	{Name: "scheduler-estimator-cert-file", Type: "string"},
	{Name: "scheduler-estimator-key-file", Type: "string"},
	{Name: "scheduler-estimator-port", Type: "int", Default: "10352"},
	{Name: "scheduler-estimator-service-namespace", Type: "string", Default: `"karmada-system"`},
	{Name: "scheduler-estimator-service-prefix", Type: "string", Default: `"karmada-scheduler-estimator"`},
	{Name: "scheduler-estimator-timeout", Type: "duration", Default: "3s"},
	{Name: "rate-limiter-base-delay", Type: "duration", Default: "5ms"},
	{Name: "rate-limiter-bucket-size", Type: "int", Default: "100"},
	{Name: "rate-limiter-max-delay", Type: "duration", Default: "16m40s"},
	{Name: "rate-limiter-qps", Type: "int", Default: "10"},
}
