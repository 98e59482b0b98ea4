// Package remedy is Karmada's remedy controller. It owns one field:
// Cluster status.remedyActions, the sorted union of the actions of every
// Remedy (remedy.karmada.io/v1alpha1) that selects the cluster and whose
// decision matches hold against the cluster's conditions. Propel, like
// Karmada, does not act on the actions itself: traffic providers read
// TrafficControl from the Cluster.
//
// It reacts to Cluster updates that change the conditions or the actions,
// and to Remedy creations, updates and deletions (for the clusters they
// name, or all clusters). It records no events and no conditions.
package remedy
