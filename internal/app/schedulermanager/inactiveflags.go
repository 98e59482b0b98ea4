package schedulermanager

import "github.com/propel-mc/propel/internal/app/commandline"

// inactiveFlags are karmada-scheduler's flags that propel-scheduler accepts
// with Karmada's types and defaults but does not act on (yet).
// TestAcceptsEveryKarmadaFlag checks all flags against Karmada's list.
var inactiveFlags = []commandline.Flag{
	{Name: "rate-limiter-base-delay", Type: "duration", Default: "5ms"},
	{Name: "rate-limiter-bucket-size", Type: "int", Default: "100"},
	{Name: "rate-limiter-max-delay", Type: "duration", Default: "16m40s"},
	{Name: "rate-limiter-qps", Type: "int", Default: "10"},
}
