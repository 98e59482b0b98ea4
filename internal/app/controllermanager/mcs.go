package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/mcs/endpointslice"
	"github.com/propel-mc/propel/internal/controllers/mcs/endpointslicecollect"
	"github.com/propel-mc/propel/internal/controllers/mcs/endpointslicedispatch"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/controllers/mcs/multiclusterservice"
	"github.com/propel-mc/propel/internal/controllers/mcs/serviceexport"
	"github.com/propel-mc/propel/internal/controllers/mcs/serviceimport"
	"github.com/propel-mc/propel/internal/shared/names"
)

// setupServiceExport starts Karmada's "serviceExport": the collection of
// exported Services' EndpointSlices from Push members (no gate).
func setupServiceExport(_ context.Context, c *Context) error {
	informers, err := c.MemberInformers()
	if err != nil {
		return err
	}
	return serviceexport.New(serviceexport.Deps{
		Client: c.Manager.GetClient(), APIReader: c.Manager.GetAPIReader(),
		Informers: memberwatch.MemberInformers{Clients: c.MemberClients, Informers: informers},
	}, c.Options.ClusterCacheSyncTimeout).SetupWithManager(c.Manager)
}

// setupEndpointSlice starts Karmada's "endpointSlice": control-plane
// copies of the collected slices (no gate).
func setupEndpointSlice(_ context.Context, c *Context) error {
	return endpointslice.New(endpointslice.Deps{Client: c.Manager.GetClient()}).SetupWithManager(c.Manager)
}

// setupServiceImport starts Karmada's "serviceImport": derived Services
// of ServiceImports (no gate).
func setupServiceImport(_ context.Context, c *Context) error {
	return serviceimport.New(serviceimport.Deps{
		Client:   c.Manager.GetClient(),
		Recorder: recorder.For(c.Manager, names.ServiceImportControllerName),
	}).SetupWithManager(c.Manager)
}

// setupMultiClusterService starts Karmada's "multiclusterservice" when the
// MultiClusterService gate is on.
func setupMultiClusterService(_ context.Context, c *Context) error {
	if !c.Options.FeatureGates.Enabled(commandline.MultiClusterService) {
		return nil
	}
	return multiclusterservice.New(multiclusterservice.Deps{
		Client: c.Manager.GetClient(), APIReader: c.Manager.GetAPIReader(),
		Recorder: recorder.For(c.Manager, names.MultiClusterServiceControllerName),
	}).SetupWithManager(c.Manager)
}

// setupEndpointSliceCollect starts Karmada's "endpointsliceCollect" when
// the MultiClusterService gate is on.
func setupEndpointSliceCollect(_ context.Context, c *Context) error {
	if !c.Options.FeatureGates.Enabled(commandline.MultiClusterService) {
		return nil
	}
	informers, err := c.MemberInformers()
	if err != nil {
		return err
	}
	return endpointslicecollect.New(endpointslicecollect.Deps{
		Client: c.Manager.GetClient(), APIReader: c.Manager.GetAPIReader(),
		Informers: memberwatch.MemberInformers{Clients: c.MemberClients, Informers: informers},
	}, c.Options.ClusterCacheSyncTimeout).SetupWithManager(c.Manager)
}

// setupEndpointSliceDispatch starts Karmada's "endpointsliceDispatch" when
// the MultiClusterService gate is on.
func setupEndpointSliceDispatch(_ context.Context, c *Context) error {
	if !c.Options.FeatureGates.Enabled(commandline.MultiClusterService) {
		return nil
	}
	return endpointslicedispatch.New(endpointslicedispatch.Deps{
		Client: c.Manager.GetClient(), APIReader: c.Manager.GetAPIReader(),
		Recorder: recorder.For(c.Manager, names.EndpointSliceDispatchControllerName),
	}).SetupWithManager(c.Manager)
}
