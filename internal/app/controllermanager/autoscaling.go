package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/cronfederatedhpa"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/deploymentreplicassyncer"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/hpascaletargetmarker"
	"github.com/propel-mc/propel/internal/shared/names"
)

// setupFederatedHPA starts Karmada's "federatedHorizontalPodAutoscaler"
// (no gate).
func setupFederatedHPA(_ context.Context, c *Context) error {
	informers, err := c.MemberInformers()
	if err != nil {
		return err
	}
	opts := c.Options.HPA
	opts.ClusterCacheSyncTimeout = c.Options.ClusterCacheSyncTimeout
	return federatedhpa.New(federatedhpa.Deps{
		Client: c.Manager.GetClient(), Mapper: c.Manager.GetRESTMapper(),
		Recorder: recorder.For(c.Manager, names.FederatedHPAControllerName),
		Clients:  c.MemberClients, Informers: informers,
	}, opts).SetupWithManager(c.Manager)
}

// setupCronFederatedHPA starts Karmada's
// "cronFederatedHorizontalPodAutoscaler" (no gate).
func setupCronFederatedHPA(_ context.Context, c *Context) error {
	return cronfederatedhpa.New(cronfederatedhpa.Deps{
		Client:   c.Manager.GetClient(),
		Recorder: recorder.For(c.Manager, names.CronFederatedHPAControllerName),
	}).SetupWithManager(c.Manager)
}

// setupHPAScaleTargetMarker starts Karmada's "hpaScaleTargetMarker" (off
// by default).
func setupHPAScaleTargetMarker(_ context.Context, c *Context) error {
	return hpascaletargetmarker.New(hpascaletargetmarker.Deps{Client: c.Manager.GetClient()}).SetupWithManager(c.Manager)
}

// setupDeploymentReplicasSyncer starts Karmada's
// "deploymentReplicasSyncer" (off by default).
func setupDeploymentReplicasSyncer(_ context.Context, c *Context) error {
	return deploymentreplicassyncer.New(deploymentreplicassyncer.Deps{Client: c.Manager.GetClient()}).SetupWithManager(c.Manager)
}
