package multiclusterservice

import (
	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
)

// Event reasons (Karmada's), on the MultiClusterService.
const (
	EventReasonSyncServiceSucceed = "SyncServiceSucceed"
	EventReasonSyncServiceFailed  = clusterset.EventReasonSyncServiceFailed
)

// serviceAppliedMessage is the message of ServiceApplied and of the
// success event.
const serviceAppliedMessage = "Service is propagated to target clusters."
