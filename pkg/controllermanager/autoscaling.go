package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/pkg/autoscaling/cronfederatedhpa"
	"github.com/propel-mc/propel/pkg/autoscaling/deploymentreplicassyncer"
	"github.com/propel-mc/propel/pkg/autoscaling/federatedhpa"
	"github.com/propel-mc/propel/pkg/autoscaling/hpascaletargetmarker"
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
	return federatedhpa.New(c.MemberClients, informers, opts).SetupWithManager(c.Manager)
}

// setupCronFederatedHPA starts Karmada's
// "cronFederatedHorizontalPodAutoscaler" (no gate).
func setupCronFederatedHPA(_ context.Context, c *Context) error {
	return cronfederatedhpa.New().SetupWithManager(c.Manager)
}

// setupHPAScaleTargetMarker starts Karmada's "hpaScaleTargetMarker" (off
// by default).
func setupHPAScaleTargetMarker(_ context.Context, c *Context) error {
	return hpascaletargetmarker.New().SetupWithManager(c.Manager)
}

// setupDeploymentReplicasSyncer starts Karmada's
// "deploymentReplicasSyncer" (off by default).
func setupDeploymentReplicasSyncer(_ context.Context, c *Context) error {
	return deploymentreplicassyncer.New().SetupWithManager(c.Manager)
}
