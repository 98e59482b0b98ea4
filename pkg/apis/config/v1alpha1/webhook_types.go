package v1alpha1

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &ResourceInterpreterWebhookConfiguration{}, &ResourceInterpreterWebhookConfigurationList{})
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=resourceinterpreterwebhookconfigurations,scope=Cluster,categories={karmada-io}
// +kubebuilder:storageversion

// ResourceInterpreterWebhookConfiguration describes webhooks that tell Karmada
// the details of resource objects, especially custom resources.
type ResourceInterpreterWebhookConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Webhooks is the list of webhooks with the resources and operations they handle.
	// +required
	Webhooks []ResourceInterpreterWebhook `json:"webhooks"`
}

// ResourceInterpreterWebhook describes one webhook and the resources and
// operations it applies to.
type ResourceInterpreterWebhook struct {
	// Name is the fully-qualified name of the webhook.
	// +required
	Name string `json:"name"`

	// ClientConfig defines how to reach the webhook: either a URL
	// (`https://host:port/path`) or a Service reference. A Service is resolved
	// through the Karmada API server (ClusterIP and port, or ExternalName; headless
	// Services are rejected), falling back to `https://<service>.<namespace>.svc:<port>`
	// when the Service is not found there. When both are set, the Service wins.
	// +required
	ClientConfig admissionregistrationv1.WebhookClientConfig `json:"clientConfig"`

	// Rules describes the operations on resources the webhook handles. The webhook
	// handles an operation if any rule matches it.
	// +optional
	Rules []RuleWithOperations `json:"rules,omitempty"`

	// TimeoutSeconds is the timeout of a call to this webhook, in seconds. Values
	// below 1 are raised to 1 and values above 30 lowered to 30. When unset, calls
	// time out after 10 seconds.
	// +optional
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`

	// InterpreterContextVersions is an ordered list of preferred
	// ResourceInterpreterContext versions the webhook accepts. Karmada uses the first
	// version it supports; the list must include a supported version (v1alpha1).
	// +required
	InterpreterContextVersions []string `json:"interpreterContextVersions"`
}

// RuleWithOperations is a set of operations and resources. Each list matches when
// it contains the exact value or '*'; when '*' is present it must be the only item.
type RuleWithOperations struct {
	// Operations are the operations the webhook handles.
	// +required
	Operations []InterpreterOperation `json:"operations"`

	// APIGroups are the API groups of the resources ('*' is all groups). The core
	// group is the empty string, e.g. [""].
	// +required
	APIGroups []string `json:"apiGroups"`

	// APIVersions are the API versions of the resources ('*' is all versions).
	// +required
	APIVersions []string `json:"apiVersions"`

	// Kinds are the kinds of the resources ('*' is all kinds), e.g. ["Deployment", "Pod"].
	// +required
	Kinds []string `json:"kinds"`
}

// InterpreterOperation specifies an operation for a request.
type InterpreterOperation string

// Interpreter operations.
const (
	// InterpreterOperationAll matches every operation.
	InterpreterOperationAll InterpreterOperation = "*"

	// InterpreterOperationInterpretReplica discovers the replica count and
	// per-replica resource requirements.
	InterpreterOperationInterpretReplica InterpreterOperation = "InterpretReplica"

	// InterpreterOperationInterpretComponent discovers per-component replicas and
	// resource requirements.
	InterpreterOperationInterpretComponent InterpreterOperation = "InterpretComponent"

	// InterpreterOperationReviseReplica sets the replica count.
	InterpreterOperationReviseReplica InterpreterOperation = "ReviseReplica"

	// InterpreterOperationInterpretStatus extracts the status of an observed object.
	InterpreterOperationInterpretStatus InterpreterOperation = "InterpretStatus"

	// InterpreterOperationPrune removes irrelevant fields from an object.
	InterpreterOperationPrune InterpreterOperation = "Prune"

	// InterpreterOperationRetain retains values changed in a member cluster.
	InterpreterOperationRetain InterpreterOperation = "Retain"

	// InterpreterOperationAggregateStatus aggregates member statuses into the template.
	InterpreterOperationAggregateStatus InterpreterOperation = "AggregateStatus"

	// InterpreterOperationInterpretHealth assesses the health of an object.
	InterpreterOperationInterpretHealth InterpreterOperation = "InterpretHealth"

	// InterpreterOperationInterpretDependency finds the dependencies of an object.
	InterpreterOperationInterpretDependency InterpreterOperation = "InterpretDependency"
)

// +kubebuilder:object:root=true

// ResourceInterpreterWebhookConfigurationList contains a list of ResourceInterpreterWebhookConfiguration.
type ResourceInterpreterWebhookConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items holds a list of ResourceInterpreterWebhookConfiguration.
	Items []ResourceInterpreterWebhookConfiguration `json:"items"`
}
