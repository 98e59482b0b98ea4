package explain

import (
	"encoding/json"
	"time"

	"github.com/propel-mc/propel/internal/cli/objectdiff"
)

// SchemaVersion identifies the JSON form of Explanation. Fields are only
// added within a version.
const SchemaVersion = "propel.explain/v1"

// Explanation is everything explain found about one template.
type Explanation struct {
	SchemaVersion string           `json:"schemaVersion"`
	Template      ObjectRef        `json:"template"`
	Policy        *PolicyStage     `json:"policy,omitempty"`
	Interpreter   InterpreterStage `json:"interpreter"`
	Scheduling    *SchedulingStage `json:"scheduling,omitempty"`
	Clusters      []ClusterStage   `json:"clusters,omitempty"`
	Status        StatusStage      `json:"status"`
	Events        []Event          `json:"events,omitempty"`
	Problems      []string         `json:"problems,omitempty"`
}

// ObjectRef names an object.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	UID        string `json:"uid,omitempty"`
	Generation int64  `json:"generation,omitempty"`
}

// PolicyStage is the policy that claims the template.
type PolicyStage struct {
	// Kind is PropagationPolicy or ClusterPropagationPolicy; empty when the
	// template is not claimed.
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// PermanentID is the claim label value on the template.
	PermanentID string `json:"permanentID,omitempty"`
	// Priority is the policy's explicit priority; ImplicitPriority its best
	// selector match (1 all, 2 label selector, 3 name).
	Priority         int32 `json:"priority"`
	ImplicitPriority int   `json:"implicitPriority,omitempty"`
	// ClaimLabels and ClaimAnnotations are the template's claim metadata.
	ClaimLabels      map[string]string `json:"claimLabels,omitempty"`
	ClaimAnnotations map[string]string `json:"claimAnnotations,omitempty"`
	// Others are the other policies selecting the template and why they
	// lost.
	Others []PolicyCandidate `json:"others,omitempty"`
	Events []Event           `json:"events,omitempty"`
}

// PolicyCandidate is a policy that selects the template but did not win.
type PolicyCandidate struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Priority  int32  `json:"priority"`
	Reason    string `json:"reason"`
}

// InterpreterStage is who answers each interpreter operation for the
// template's kind, and the template-side answers.
type InterpreterStage struct {
	// Source says where the answers come from: live objects do not record
	// the answering layer, so explain re-runs the interpreter locally.
	Source     string            `json:"source"`
	Operations []OperationAnswer `json:"operations"`
}

// NoLayer is the Layer of an operation no layer answers for the kind
// (InterpretComponent has no native fallback).
const NoLayer = "none"

// OperationAnswer is one operation: its answering layer and hook, and for
// operations explain runs on the template, the result or error.
type OperationAnswer struct {
	Operation string `json:"operation"`
	Layer     string `json:"layer,omitempty"`
	Hook      string `json:"hook,omitempty"`
	// Result is the answer on the template (InterpretReplica: replicas and
	// requirements; InterpretComponent: components; InterpretDependency:
	// dependencies); absent for operations on member objects.
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// SchedulingStage is the binding and what the scheduler decided.
type SchedulingStage struct {
	Binding    ObjectRef       `json:"binding"`
	Replicas   int32           `json:"replicas"`
	Placement  json.RawMessage `json:"placement,omitempty"`
	Clusters   []TargetCluster `json:"clusters"`
	Conditions []Condition     `json:"conditions,omitempty"`
	Events     []Event         `json:"events,omitempty"`
}

// TargetCluster is one entry of the binding's spec.clusters.
type TargetCluster struct {
	Name     string `json:"name"`
	Replicas int32  `json:"replicas"`
}

// ClusterStage is what happened in one target cluster.
type ClusterStage struct {
	Name string `json:"name"`
	// Work is the Work in karmada-es-<cluster>; empty when none exists.
	Work ObjectRef `json:"work"`
	// ScheduledReplicas are the binding's replicas for the cluster;
	// ManifestReplicas the spec.replicas the Work carries (after
	// ReviseReplica and overrides); MemberReplicas the member object's
	// spec.replicas (after Retain).
	ScheduledReplicas int32  `json:"scheduledReplicas"`
	ManifestReplicas  *int64 `json:"manifestReplicas,omitempty"`
	MemberReplicas    *int64 `json:"memberReplicas,omitempty"`
	// Overrides are the rules recorded in the Work's applied-overrides
	// and applied-cluster-overrides annotations, in that order.
	Overrides []AppliedOverride `json:"overrides,omitempty"`
	// Retained are the fields of the member object that Retain keeps over
	// the Work's manifest (member-added labels and annotations, and what
	// the interpreter's Retain answers).
	Retained []objectdiff.Change `json:"retained,omitempty"`
	Applied  *Condition          `json:"applied,omitempty"`
	Member   MemberObject        `json:"member"`
	// Health and Status are what the work status controller recorded in
	// the Work's manifestStatuses.
	Health string          `json:"health,omitempty"`
	Status json.RawMessage `json:"status,omitempty"`
	Events []Event         `json:"events,omitempty"`
}

// AppliedOverride is one applied override rule.
type AppliedOverride struct {
	// Kind is OverridePolicy or ClusterOverridePolicy.
	Kind       string          `json:"kind"`
	Policy     string          `json:"policy"`
	Overriders json.RawMessage `json:"overriders"`
}

// MemberObject is the member cluster's copy of the template.
type MemberObject struct {
	// Reachable is false when the member could not be read; Error says why.
	Reachable          bool   `json:"reachable"`
	Found              bool   `json:"found"`
	Error              string `json:"error,omitempty"`
	Generation         int64  `json:"generation,omitempty"`
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// Healthy is the interpreter's InterpretHealth of the member object,
	// re-run locally.
	Healthy *bool `json:"healthy,omitempty"`
}

// StatusStage is what came back to the control plane.
type StatusStage struct {
	Aggregated []AggregatedItem `json:"aggregated,omitempty"`
	// Conditions are the binding's (FullyApplied, ...).
	Conditions []Condition `json:"conditions,omitempty"`
	// Template is the template's .status.
	Template json.RawMessage `json:"template,omitempty"`
}

// AggregatedItem is one entry of the binding's status.aggregatedStatus.
type AggregatedItem struct {
	Cluster        string `json:"cluster"`
	Applied        bool   `json:"applied"`
	AppliedMessage string `json:"appliedMessage,omitempty"`
	Health         string `json:"health,omitempty"`
}

// Condition is a status condition.
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime time.Time `json:"lastTransitionTime,omitzero"`
}

// Event is a Kubernetes Event of a stage's object.
type Event struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Object is "Kind/name" of the involved object.
	Object   string    `json:"object"`
	Count    int32     `json:"count,omitempty"`
	LastSeen time.Time `json:"lastSeen,omitzero"`
}
