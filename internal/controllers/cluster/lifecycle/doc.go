// Package lifecycle is Propel's cluster-controller. It owns, for every
// Cluster whatever its sync mode:
//
//   - the execution namespace karmada-es-<cluster>, labelled
//     karmada.io/system=true;
//   - the taints cluster.karmada.io/not-ready and cluster.karmada.io/unreachable
//     (NoSchedule), derived from the Ready condition (NoExecute taints,
//     which ClusterTaintPolicies or users add, are left alone apart from
//     getting timeAdded when they lack it, as Karmada's Cluster API does);
//   - the finalizer karmada.io/cluster-controller and the cleanup it guards:
//     on an explicit Cluster deletion it deletes the execution namespace
//     (and so the Works in it) and waits until no binding targets the
//     cluster. It never deletes a binding, the credentials Secret or anything
//     in the member cluster, and it deletes nothing while the Cluster exists:
//     a member that is down only gets a taint;
//   - for Pull clusters only, the health monitor that turns Ready to Unknown
//     when karmada-agent stops renewing its Lease or posting status.
//
// Reconcile is split into phases (sync: execution space, taints, finalizer;
// remove: work finalizers of unready Pull clusters, execution space,
// bindings, finalizer). Each phase writes only when something differs.
package lifecycle
