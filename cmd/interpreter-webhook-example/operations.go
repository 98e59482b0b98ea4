package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

// interpretReplica: spec.replicas (1 when unset) and what one pod of the
// template needs, computed like a Deployment's.
func interpretReplica(w *Workload) interpreter.Response {
	res := interpreter.Succeeded("")
	replicas := w.desiredReplicas()
	res.Replicas = &replicas
	res.ReplicaRequirements = native.AccuratePodRequirements(&w.Spec.Template)
	return res
}

// reviseReplica sets spec.replicas to the desired count.
func reviseReplica(req interpreter.Request) interpreter.Response {
	if req.DesiredReplicas == nil {
		return interpreter.Errored(http.StatusBadRequest, errors.New("request carries no replicas"))
	}
	return patchObject(req.Object.Raw, func(obj map[string]any) error {
		return unstructured.SetNestedField(obj, int64(*req.DesiredReplicas), "spec", "replicas")
	})
}

// retain keeps spec.paused as observed in the member cluster: users and
// controllers there may pause a rollout, and the control plane must not
// undo it.
func (e *workloadInterpreter) retain(req interpreter.Request) interpreter.Response {
	if req.ObservedObject == nil {
		return interpreter.Errored(http.StatusBadRequest, fmt.Errorf("no observedObject in %s request", req.Operation))
	}
	observed := &Workload{}
	if err := e.decoder.DecodeRaw(*req.ObservedObject, observed); err != nil {
		return interpreter.Errored(http.StatusBadRequest, err)
	}
	return patchObject(req.Object.Raw, func(obj map[string]any) error {
		_, present, _ := unstructured.NestedFieldNoCopy(obj, "spec", "paused")
		if !present && !observed.Spec.Paused {
			return nil
		}
		return unstructured.SetNestedField(obj, observed.Spec.Paused, "spec", "paused")
	})
}

// aggregateStatus sets status.readyReplicas to the sum over the member
// clusters. The CRD's status has no other counter; conditions are
// per-cluster and are not merged.
func aggregateStatus(req interpreter.Request) interpreter.Response {
	var ready int64
	for _, item := range req.AggregatedStatus {
		if item.Status == nil || len(item.Status.Raw) == 0 {
			continue
		}
		st := WorkloadStatus{}
		if err := json.Unmarshal(item.Status.Raw, &st); err != nil {
			return interpreter.Errored(http.StatusBadRequest, fmt.Errorf("decode status of cluster %s: %w", item.ClusterName, err))
		}
		ready += int64(st.ReadyReplicas)
	}
	return patchObject(req.Object.Raw, func(obj map[string]any) error {
		return unstructured.SetNestedField(obj, ready, "status", "readyReplicas")
	})
}

// interpretHealth: a Workload is healthy when at least spec.replicas (1
// when unset) pods are ready. More ready than desired, as while scaling
// down, is healthy too.
func interpretHealth(w *Workload) interpreter.Response {
	res := interpreter.Succeeded("")
	healthy := w.Status.ReadyReplicas >= w.desiredReplicas()
	res.Healthy = &healthy
	return res
}

// interpretStatus reflects the whole status: readyReplicas and conditions.
func interpretStatus(w *Workload) interpreter.Response {
	raw, err := json.Marshal(w.Status)
	if err != nil {
		return interpreter.Errored(http.StatusInternalServerError, err)
	}
	res := interpreter.Succeeded("")
	res.RawStatus = &runtime.RawExtension{Raw: raw}
	return res
}

// interpretDependency lists what the pod template refers to, as for a
// Deployment: ConfigMaps, Secrets, the ServiceAccount and
// PersistentVolumeClaims, in the Workload's namespace.
func interpretDependency(w *Workload) interpreter.Response {
	res := interpreter.Succeeded("")
	res.Dependencies = native.PodDependencies(&w.Spec.Template, w.Namespace)
	return res
}
