// Package multiclusterservice is Karmada's multiclusterservice-controller
// ("multiclusterservice", behind the MultiClusterService gate). For each
// MultiClusterService of type CrossCluster it:
//   - writes a suspended marker Work holding the MCS into each provider
//     cluster's execution namespace, which tells the collect controller to
//     watch that cluster's EndpointSlices;
//   - claims the Service of the same name (the detector then leaves it)
//     and binds it, through the ResourceBinding <service>-service, to the
//     providers and consumers;
//   - records the outcome in the ServiceApplied condition.
//
// On deletion it withdraws the collected Works, removes the marker Works
// and un-claims the Service (the binding stays, as on policy deletion).
package multiclusterservice
