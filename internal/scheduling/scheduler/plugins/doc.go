// Package plugins holds the scheduler's in-tree filter and score plugins
// (APIEnablement, TaintToleration, ClusterAffinity, SpreadConstraint,
// ClusterEviction, and under the WorkloadAffinity gate WorkloadAffinity and
// WorkloadAntiAffinity; ClusterLocality and ClusterAffinity scores) and the
// --plugins selection syntax ("*", "*,-Name", "Name1,Name2").
package plugins
