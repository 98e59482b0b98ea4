package names

import "strings"

// maxObjectNameLength is the longest DNS-subdomain object name.
const maxObjectNameLength = 253

// CollisionFreeImportedEndpointSliceName is the control-plane name of
// cluster's slice when ImportedEndpointSliceName is taken by another
// cluster's slice (cluster "a" slice "b-x" and cluster "a-b" slice "x"
// share imported-a-b-x): Karmada's name, shortened if needed to stay a
// valid object name, then "-" and a hash of the cluster and slice names.
func CollisionFreeImportedEndpointSliceName(cluster, name string) string {
	suffix := "-" + hashString(cluster+"/"+name)
	base := ImportedEndpointSliceName(cluster, name)
	if len(base) > maxObjectNameLength-len(suffix) {
		base = strings.TrimRight(base[:maxObjectNameLength-len(suffix)], "-.")
	}
	return base + suffix
}
