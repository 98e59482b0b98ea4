// Package estimator owns available-replica estimation: how many more
// replicas of a binding each cluster can hold. The general estimator works
// from Cluster status.resourceSummary, through the resource models
// (virtual nodes per grade) when allocatableModelings are reported, else
// through allocatable − allocated − allocating. Further estimators can be
// added; the per-cluster minimum wins and -1 means "no opinion".
package estimator
