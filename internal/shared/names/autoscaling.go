package names

// Federated autoscaling controllers' names (Karmada's; also the event
// source components).
const (
	FederatedHPAControllerName             = "federatedHPA-controller"
	CronFederatedHPAControllerName         = "cronfederatedhpa-controller"
	HPAScaleTargetMarkerControllerName     = "hpa-scale-target-marker"
	DeploymentReplicasSyncerControllerName = "deployment-replicas-syncer"
)
