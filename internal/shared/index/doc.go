// Package index owns every field index Propel's controllers query on the
// manager's cache (cluster-api's pattern): the index names, the functions
// that extract their values, and AddDefaultIndexes, which the controller
// manager calls once before any controller starts. A controller never
// registers an index itself, so two controllers can neither register the
// same index twice nor under two names.
package index
