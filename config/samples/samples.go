// Package samples embeds Propel's demo manifests (config/samples), so that
// `propelctl demo` works from any directory.
package samples

import "embed"

// FS holds nginx/, nginx-weighted/ and workload/.
//
//go:embed nginx nginx-weighted workload
var FS embed.FS
