package native

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/names"
)

// PruneHook removes more fields in Prune, after the built-in rules.
type PruneHook func(obj *unstructured.Unstructured)

// serverSetMetadata are the metadata fields every API server sets.
var serverSetMetadata = [...]string{
	"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation",
	"managedFields", "resourceVersion", "selfLink", "uid", "ownerReferences", "finalizers",
}

// Prune strips, in place, the fields a cluster sets on an object, before
// the object is packed into a Work manifest or compared with a member
// object: server-set metadata, the whole status, and per kind (matched on
// kind only, as Karmada does) the fields member clusters generate. hooks
// run last; controllers pass RemoveJobTTLSeconds.
//
// It fails only when a Job's spec.manualSelector or selector labels have
// the wrong type.
func Prune(obj *unstructured.Unstructured, hooks ...PruneHook) error {
	for _, field := range serverSetMetadata {
		unstructured.RemoveNestedField(obj.Object, "metadata", field)
	}
	delete(obj.Object, "status")
	switch obj.GetKind() {
	case deploymentGVK.Kind:
		removeAnnotations(obj, names.DeploymentRevisionAnnotation, names.DeploymentRevisionHistoryAnnotation)
	case jobGVK.Kind:
		if err := pruneJobSelector(obj); err != nil {
			return fmt.Errorf("prune Job %s: %w", objectKey(obj), err)
		}
	case secretGVK.Kind:
		pruneServiceAccountTokenSecret(obj)
	case serviceAccountGVK.Kind:
		pruneServiceAccountTokens(obj)
	case serviceGVK.Kind:
		pruneServiceClusterIP(obj)
	case pvcGVK.Kind:
		if obj.GetAnnotations()[names.PVCSelectedNodeAnnotation] != "" {
			removeAnnotations(obj, names.PVCSelectedNodeAnnotation)
		}
	}
	for _, hook := range hooks {
		hook(obj)
	}
	return nil
}

// RemoveJobTTLSeconds is a PruneHook removing a Job's
// spec.ttlSecondsAfterFinished, so that a finished Job is not garbage
// collected in a member cluster while its template lives on.
func RemoveJobTTLSeconds(obj *unstructured.Unstructured) {
	if obj.GetKind() == jobGVK.Kind {
		unstructured.RemoveNestedField(obj.Object, "spec", "ttlSecondsAfterFinished")
	}
}

func removeAnnotations(obj *unstructured.Unstructured, keys ...string) {
	for _, key := range keys {
		unstructured.RemoveNestedField(obj.Object, "metadata", "annotations", key)
	}
}

// pruneJobSelector removes the selector and template labels the job
// controller generates, unless the user manages the selector.
func pruneJobSelector(obj *unstructured.Unstructured) error {
	spec, err := mapAt(obj.Object, "spec")
	if err != nil {
		return err
	}
	manual, err := asBool(spec["manualSelector"])
	if err != nil {
		return at(err, "spec", "manualSelector")
	}
	if manual {
		return nil
	}
	if err := deleteMapKeys(obj, []string{"spec", "selector", "matchLabels"},
		names.LegacyJobControllerUIDLabel, batchv1.ControllerUidLabel); err != nil {
		return err
	}
	return deleteMapKeys(obj, []string{"spec", "template", "metadata", "labels"},
		names.LegacyJobControllerUIDLabel, names.LegacyJobNameLabel, batchv1.ControllerUidLabel, batchv1.JobNameLabel)
}

// deleteMapKeys deletes keys from the map at path, if there is one.
func deleteMapKeys(obj *unstructured.Unstructured, path []string, keys ...string) error {
	m, found, err := unstructured.NestedStringMap(obj.Object, path...)
	if err != nil || !found {
		return err
	}
	for _, key := range keys {
		delete(m, key)
	}
	return unstructured.SetNestedStringMap(obj.Object, m, path...)
}

// pruneServiceAccountTokenSecret drops the data and the service account
// UID of a token Secret: each member cluster issues its own token.
func pruneServiceAccountTokenSecret(obj *unstructured.Unstructured) {
	if t, _, _ := unstructured.NestedString(obj.Object, "type"); t != string(corev1.SecretTypeServiceAccountToken) {
		return
	}
	removeAnnotations(obj, corev1.ServiceAccountUIDKey)
	obj.Object["data"] = nil
}

// pruneServiceAccountTokens drops the "<name>-token-*" Secrets a legacy
// token controller listed in secrets. Like Karmada, the element shifted
// into a removed slot is not checked, so of two adjacent token Secrets the
// second survives.
func pruneServiceAccountTokens(obj *unstructured.Unstructured) {
	secrets, found, err := unstructured.NestedSlice(obj.Object, "secrets")
	if err != nil || !found {
		return
	}
	prefix := obj.GetName() + "-token-"
	for i := 0; i < len(secrets); i++ {
		entry, _ := secrets[i].(map[string]interface{})
		if name, _ := entry["name"].(string); strings.HasPrefix(name, prefix) {
			secrets = append(secrets[:i], secrets[i+1:]...)
		}
	}
	obj.Object["secrets"] = secrets
}

// pruneServiceClusterIP drops allocated cluster IPs; each member allocates
// its own. Headless services keep "None".
func pruneServiceClusterIP(obj *unstructured.Unstructured) {
	ip, found, _ := unstructured.NestedString(obj.Object, "spec", "clusterIP")
	if found && ip != corev1.ClusterIPNone {
		unstructured.RemoveNestedField(obj.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(obj.Object, "spec", "clusterIPs")
	}
}
