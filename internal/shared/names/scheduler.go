package names

// Cluster fields a placement's fieldSelector may test.
const (
	ClusterFieldProvider = "provider"
	ClusterFieldRegion   = "region"
	ClusterFieldZone     = "zone"
)
