// Package samples embeds Propel's demo manifests (config/samples), so that
// `propelctl demo` works from any directory.
package samples

import "embed"

// FS holds nginx/, nginx-weighted/, workload/, failover/, mcs-api/,
// multiclusterservice/ and federatedhpa/.
//
//go:embed nginx nginx-weighted workload failover mcs-api multiclusterservice federatedhpa
var FS embed.FS
