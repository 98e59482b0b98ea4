package v1alpha1

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &CronFederatedHPA{}, &CronFederatedHPAList{})
}

// CronFederatedHPA sets, on schedules, the replicas of a resource template
// with a scale subresource or the bounds of a FederatedHPA.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=cronfederatedhpas,scope=Namespaced,shortName=cronfhpa,categories={karmada-io}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.spec.scaleTargetRef.kind`,name=`REFERENCE-KIND`,type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.scaleTargetRef.name`,name=`REFERENCE-NAME`,type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name=`AGE`,type=date
type CronFederatedHPA struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the target and its rules.
	// +required
	Spec CronFederatedHPASpec `json:"spec"`

	// Status is the execution history of each rule.
	// +optional
	Status CronFederatedHPAStatus `json:"status,omitempty"`
}

// CronFederatedHPASpec is what is scaled, and when.
type CronFederatedHPASpec struct {
	// ScaleTargetRef is a FederatedHPA or a resource template with a scale
	// subresource.
	// +required
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference `json:"scaleTargetRef"`

	// Rules are the schedules and what each sets.
	// +required
	Rules []CronFederatedHPARule `json:"rules"`
}

// CronFederatedHPARule is one schedule.
type CronFederatedHPARule struct {
	// Name identifies the rule and its execution history.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +required
	Name string `json:"name"`

	// Schedule is a cron expression in the standard five fields.
	// +required
	Schedule string `json:"schedule"`

	// TargetReplicas is the replicas to set on a workload target.
	// +optional
	TargetReplicas *int32 `json:"targetReplicas,omitempty"`

	// TargetMinReplicas is the minReplicas to set on a FederatedHPA target.
	// +optional
	TargetMinReplicas *int32 `json:"targetMinReplicas,omitempty"`

	// TargetMaxReplicas is the maxReplicas to set on a FederatedHPA target.
	// +optional
	TargetMaxReplicas *int32 `json:"targetMaxReplicas,omitempty"`

	// Suspend stops the rule from firing.
	// +kubebuilder:default=false
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// TimeZone is the IANA time zone of Schedule (default: the controller's
	// local time zone).
	// +optional
	TimeZone *string `json:"timeZone,omitempty"`

	// SuccessfulHistoryLimit is how many successful executions are kept.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=32
	// +optional
	SuccessfulHistoryLimit *int32 `json:"successfulHistoryLimit,omitempty"`

	// FailedHistoryLimit is how many failed executions are kept.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=32
	// +optional
	FailedHistoryLimit *int32 `json:"failedHistoryLimit,omitempty"`
}

// CronFederatedHPAStatus is the observed state of a CronFederatedHPA.
type CronFederatedHPAStatus struct {
	// ExecutionHistories are the executions of each rule.
	// +optional
	ExecutionHistories []ExecutionHistory `json:"executionHistories,omitempty"`
}

// ExecutionHistory is one rule's next and past executions.
type ExecutionHistory struct {
	// RuleName is the rule's name.
	// +required
	RuleName string `json:"ruleName"`

	// NextExecutionTime is when the rule fires next; nil while suspended.
	// +optional
	NextExecutionTime *metav1.Time `json:"nextExecutionTime,omitempty"`

	// SuccessfulExecutions are the latest successful executions, newest
	// first.
	// +optional
	SuccessfulExecutions []SuccessfulExecution `json:"successfulExecutions,omitempty"`

	// FailedExecutions are the latest failed executions, newest first.
	// +optional
	FailedExecutions []FailedExecution `json:"failedExecutions,omitempty"`
}

// SuccessfulExecution is one execution that applied the rule.
type SuccessfulExecution struct {
	// ScheduleTime is when the execution was due.
	// +required
	ScheduleTime *metav1.Time `json:"scheduleTime"`

	// ExecutionTime is when it ran.
	// +required
	ExecutionTime *metav1.Time `json:"executionTime"`

	// AppliedReplicas is the rule's targetReplicas.
	// +optional
	AppliedReplicas *int32 `json:"appliedReplicas,omitempty"`

	// AppliedMaxReplicas is the rule's targetMaxReplicas.
	// +optional
	AppliedMaxReplicas *int32 `json:"appliedMaxReplicas,omitempty"`

	// AppliedMinReplicas is the rule's targetMinReplicas.
	// +optional
	AppliedMinReplicas *int32 `json:"appliedMinReplicas,omitempty"`
}

// FailedExecution is one execution that failed.
type FailedExecution struct {
	// ScheduleTime is when the execution was due.
	// +required
	ScheduleTime *metav1.Time `json:"scheduleTime"`

	// ExecutionTime is when it ran.
	// +required
	ExecutionTime *metav1.Time `json:"executionTime"`

	// Message says why it failed.
	// +required
	Message string `json:"message"`
}

// CronFederatedHPAList is a list of CronFederatedHPAs.
//
// +kubebuilder:object:root=true
type CronFederatedHPAList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronFederatedHPA `json:"items"`
}
