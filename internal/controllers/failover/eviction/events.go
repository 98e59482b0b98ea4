package eviction

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// EventReasonEvictWorkloadFromClusterFailed is the Warning every producer
// (taint manager, application failover) records on the binding and on its
// template when writing an eviction fails (Karmada's reason; Karmada
// records nothing when the write succeeds).
const EventReasonEvictWorkloadFromClusterFailed = "EvictWorkloadFromClusterFailed"

// RecordFailed records EvictWorkloadFromClusterFailed "Evict from cluster
// <c> failed." on b and on its template.
func RecordFailed(recorder record.EventRecorder, b workv1alpha2.Binding, cluster string) {
	msg := fmt.Sprintf("Evict from cluster %s failed.", cluster)
	recorder.Event(b, corev1.EventTypeWarning, EventReasonEvictWorkloadFromClusterFailed, msg)
	recorder.Event(TemplateRef(b), corev1.EventTypeWarning, EventReasonEvictWorkloadFromClusterFailed, msg)
}

// TemplateRef refers to b's resource template, for events on it.
func TemplateRef(b workv1alpha2.Binding) *corev1.ObjectReference {
	r := b.BindingSpec().Resource
	return &corev1.ObjectReference{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: r.UID}
}
