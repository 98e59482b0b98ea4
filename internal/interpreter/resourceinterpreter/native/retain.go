package native

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/names"
)

// retainDeploymentReplicas keeps the member's spec.replicas when the
// template asks for it (label resourcetemplate.karmada.io/retain-replicas:
// "true"), e.g. because an HPA in the member cluster scales it.
func retainDeploymentReplicas(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if desired.GetLabels()[names.RetainReplicasLabel] != names.TrueValue {
		return desired, nil
	}
	replicas, found, err := unstructured.NestedInt64(observed.Object, "spec", "replicas")
	if err == nil && !found {
		err = errors.New("not set")
	}
	if err != nil {
		return nil, fmt.Errorf("spec.replicas of the observed object: %w", err)
	}
	if err := unstructured.SetNestedField(desired.Object, replicas, "spec", "replicas"); err != nil {
		return nil, err
	}
	return desired, nil
}

// retainPod keeps what the member's scheduler and admission set: the node,
// the service account, the volumes (with injected token volumes) and the
// containers' volume mounts. The result is a new, normalized object: Pods
// are the one kind still converted whole, because Karmada's answer is the
// normalized Pod (rarely propagated, so not worth a field-level copy of
// Karmada's normalization).
func retainPod(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var want, got corev1.Pod
	if err := toTyped(desired, &want); err != nil {
		return nil, err
	}
	if err := toTyped(observed, &got); err != nil {
		return nil, fmt.Errorf("observed object: %w", err)
	}
	want.Spec.NodeName = got.Spec.NodeName
	want.Spec.ServiceAccountName = got.Spec.ServiceAccountName
	want.Spec.Volumes = got.Spec.Volumes
	retainVolumeMounts(want.Spec.Containers, got.Spec.Containers)
	retainVolumeMounts(want.Spec.InitContainers, got.Spec.InitContainers)
	return toUnstructured(&want)
}

// retainVolumeMounts copies the mounts of each observed container into the
// desired container of the same name.
func retainVolumeMounts(desired, observed []corev1.Container) {
	for _, o := range observed {
		for i := range desired {
			if desired[i].Name == o.Name {
				desired[i].VolumeMounts = o.VolumeMounts
			}
		}
	}
}

// retainService keeps the allocated spec.healthCheckNodePort and
// spec.clusterIP. Like Karmada, spec.clusterIPs and node ports are not
// retained: the API server keeps the allocated values when an update
// leaves them unset.
func retainService(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	port, found, err := unstructured.NestedInt64(observed.Object, "spec", "healthCheckNodePort")
	if err != nil {
		return nil, fmt.Errorf("observed object: %w", err)
	}
	if found && port > 0 {
		if err := unstructured.SetNestedField(desired.Object, port, "spec", "healthCheckNodePort"); err != nil {
			return nil, err
		}
	}
	return retainSpecStringIfSet("clusterIP")(desired, observed)
}

// retainSpecStringIfSet keeps spec.<field> of the member when it is a
// non-empty string (PVC spec.volumeName, Service spec.clusterIP).
func retainSpecStringIfSet(field string) retainFunc {
	return func(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		value, found, err := unstructured.NestedString(observed.Object, "spec", field)
		if err != nil {
			return nil, fmt.Errorf("observed object: %w", err)
		}
		if found && value != "" {
			if err := unstructured.SetNestedField(desired.Object, value, "spec", field); err != nil {
				return nil, err
			}
		}
		return desired, nil
	}
}

// retainServiceAccount merges secrets and imagePullSecrets: every desired
// entry, then the observed entries with a name not yet present (members add
// their own token and pull secrets). The merged lists are always written
// back, as null when empty.
func retainServiceAccount(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	for _, field := range []string{"secrets", "imagePullSecrets"} {
		merged, err := mergeByName(desired, observed, field)
		if err != nil {
			return nil, err
		}
		if merged == nil {
			desired.Object[field] = nil
		} else {
			desired.Object[field] = merged
		}
	}
	return desired, nil
}

func mergeByName(desired, observed *unstructured.Unstructured, field string) ([]interface{}, error) {
	want, _, err := unstructured.NestedSlice(desired.Object, field)
	if err != nil {
		return nil, err
	}
	got, _, err := unstructured.NestedSlice(observed.Object, field)
	if err != nil {
		return nil, fmt.Errorf("observed object: %w", err)
	}
	if len(want)+len(got) == 0 {
		return nil, nil
	}
	seen := make(map[string]bool, len(want)+len(got))
	merged := make([]interface{}, 0, len(want)+len(got))
	for _, entry := range want {
		name, err := entryName(entry, field)
		if err != nil {
			return nil, err
		}
		seen[name] = true
		merged = append(merged, entry)
	}
	for _, entry := range got {
		name, err := entryName(entry, field)
		if err != nil {
			return nil, fmt.Errorf("observed object: %w", err)
		}
		if !seen[name] {
			seen[name] = true
			merged = append(merged, entry)
		}
	}
	return merged, nil
}

func entryName(entry interface{}, field string) (string, error) {
	m, ok := entry.(map[string]interface{})
	if !ok {
		return "", fmt.Errorf("%s: entry of type %T, expected an object", field, entry)
	}
	name, _ := m["name"].(string)
	return name, nil
}

// retainPersistentVolume keeps the member's spec.claimRef (the claim bound
// there), whatever its value.
func retainPersistentVolume(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ref, found, err := unstructured.NestedFieldCopy(observed.Object, "spec", "claimRef")
	if err != nil {
		return nil, fmt.Errorf("observed object: %w", err)
	}
	if found {
		if err := unstructured.SetNestedField(desired.Object, ref, "spec", "claimRef"); err != nil {
			return nil, err
		}
	}
	return desired, nil
}

// retainJob keeps the selector and template labels the member's job
// controller generated: both are immutable.
func retainJob(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	for _, path := range [][]string{
		{"spec", "selector", "matchLabels"},
		{"spec", "template", "metadata", "labels"},
	} {
		labels, found, err := unstructured.NestedStringMap(observed.Object, path...)
		if err != nil {
			return nil, fmt.Errorf("observed object: %w", err)
		}
		if !found {
			continue
		}
		if err := unstructured.SetNestedStringMap(desired.Object, labels, path...); err != nil {
			return nil, err
		}
	}
	return desired, nil
}

// retainServiceAccountToken keeps the data of a service-account token
// Secret: the member's token controller fills it.
func retainServiceAccountToken(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	secretType, _, err := unstructured.NestedString(desired.Object, "type")
	if err != nil {
		return nil, err
	}
	if secretType != string(corev1.SecretTypeServiceAccountToken) {
		return desired, nil
	}
	data, found, err := unstructured.NestedMap(observed.Object, "data")
	if err != nil {
		return nil, fmt.Errorf("observed object: %w", err)
	}
	if found {
		if err := unstructured.SetNestedMap(desired.Object, data, "data"); err != nil {
			return nil, err
		}
	}
	return desired, nil
}
