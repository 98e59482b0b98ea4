package overrides

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// containersPath is where the containers of the kinds Karmada's image,
// command and args overriders know live; nil for other kinds, which those
// overriders leave untouched. Kinds are matched by name only, as Karmada
// does.
func containersPath(kind string) []string {
	switch kind {
	case "Pod":
		return []string{"spec", "containers"}
	case "ReplicaSet", "Deployment", "DaemonSet", "Job", "StatefulSet":
		return []string{"spec", "template", "spec", "containers"}
	}
	return nil
}

// applyImage applies one image overrider: to the image at predicate.path,
// or without a predicate to every container (not init containers) of the
// known workload kinds.
func applyImage(obj *unstructured.Unstructured, o *policyv1alpha1.ImageOverrider) *pathError {
	if o.Predicate != nil {
		return applyImageAtPath(obj, o)
	}
	return eachContainer(obj, "image", func(container map[string]interface{}, imagePath string) *pathError {
		current, ok := container["image"].(string)
		if !ok {
			return &pathError{path: imagePath, err: errors.New("container has no image string")}
		}
		image, err := overrideImage(current, o)
		if err != nil {
			return &pathError{path: imagePath, err: err}
		}
		container["image"] = image
		return nil
	})
}

// eachContainer calls visit with every container (not init containers) of
// the known workload kinds, in place, and the JSON pointer of its field;
// the first error ends the walk. Other kinds and workloads without
// containers have none to visit.
func eachContainer(obj *unstructured.Unstructured, field string, visit func(container map[string]interface{}, fieldPath string) *pathError) *pathError {
	path := containersPath(obj.GetKind())
	if path == nil {
		return nil
	}
	containers, found, err := containersAt(obj, path)
	if err != nil {
		return &pathError{path: pointer(path), err: err}
	}
	if !found {
		return nil
	}
	for i, c := range containers {
		fieldPath := pointer(path) + "/" + strconv.Itoa(i) + "/" + field
		container, ok := c.(map[string]interface{})
		if !ok {
			return &pathError{path: fieldPath, err: errors.New("container is not an object")}
		}
		if err := visit(container, fieldPath); err != nil {
			return err
		}
	}
	return nil
}

// applyImageAtPath reads the image at the predicate path the way Karmada
// does (segments split on '/', numeric segments index lists) and writes
// the new image back with a JSON-patch replace at that path.
func applyImageAtPath(obj *unstructured.Unstructured, o *policyv1alpha1.ImageOverrider) *pathError {
	path := o.Predicate.Path
	current, err := imageAt(obj.Object, path)
	if err != nil {
		return &pathError{path: path, err: err}
	}
	if !strings.HasPrefix(path, "/") {
		return &pathError{path: path, err: errors.New("path must start with '/'")}
	}
	image, err := overrideImage(current, o)
	if err != nil {
		return &pathError{path: path, err: err}
	}
	value, err := jsonValue(image)
	if err != nil {
		return &pathError{path: path, err: err}
	}
	if err := applyPatch(obj, []patchOp{{op: string(policyv1alpha1.OverriderOpReplace), path: path, value: value}}); err != nil {
		return &pathError{path: path, err: err}
	}
	return nil
}

// imageAt walks path through maps and, after a list, a numeric index; the
// last segment must hold a string.
func imageAt(obj map[string]interface{}, path string) (string, error) {
	segments := strings.Split(strings.Trim(path, "/"), "/")
	current := obj
	for i := 0; i < len(segments)-1; i++ {
		switch v := current[segments[i]].(type) {
		case map[string]interface{}:
			current = v
		case []interface{}:
			idx, err := strconv.ParseInt(segments[i+1], 10, 32)
			if err != nil {
				return "", fmt.Errorf("segment %q after list %q is not a number", segments[i+1], segments[i])
			}
			if idx < 0 || int(idx) >= len(v) {
				return "", fmt.Errorf("index %d out of range of list %q (length %d)", idx, segments[i], len(v))
			}
			next, ok := v[idx].(map[string]interface{})
			if !ok {
				return "", fmt.Errorf("item %d of list %q is not an object", idx, segments[i])
			}
			current = next
			i++
		default:
			return "", fmt.Errorf("segment %q does not exist or is not an object or a list", segments[i])
		}
	}
	last := segments[len(segments)-1]
	image, ok := current[last].(string)
	if !ok {
		return "", fmt.Errorf("segment %q does not exist or is not a string", last)
	}
	return image, nil
}

// overrideImage changes one component of image.
func overrideImage(image string, o *policyv1alpha1.ImageOverrider) (string, error) {
	ref, err := parseImage(image)
	if err != nil {
		return "", fmt.Errorf("parse image %q: %w", image, err)
	}
	switch o.Component {
	case policyv1alpha1.Registry:
		ref.hostname = overrideComponent(ref.hostname, o)
	case policyv1alpha1.Repository:
		ref.repository = overrideComponent(ref.repository, o)
	case policyv1alpha1.Tag:
		switch o.Operator {
		case policyv1alpha1.OverriderOpAdd:
			ref.setTagOrDigest(ref.tagOrDigest() + o.Value)
		case policyv1alpha1.OverriderOpReplace:
			ref.setTagOrDigest(o.Value)
		case policyv1alpha1.OverriderOpRemove:
			ref.removeTagOrDigest()
		}
	default:
		return "", fmt.Errorf("unsupported image component %q", o.Component)
	}
	return ref.String(), nil
}

// overrideComponent applies the operator to a hostname or repository: add
// appends, replace sets, remove clears; an unknown operator changes
// nothing.
func overrideComponent(current string, o *policyv1alpha1.ImageOverrider) string {
	switch o.Operator {
	case policyv1alpha1.OverriderOpAdd:
		return current + o.Value
	case policyv1alpha1.OverriderOpReplace:
		return o.Value
	case policyv1alpha1.OverriderOpRemove:
		return ""
	}
	return current
}

// pointer renders path segments as a JSON pointer (segments here never
// need escaping).
func pointer(path []string) string {
	return "/" + strings.Join(path, "/")
}

// containersAt returns the container list at path without copying it (the
// overriders change the containers in place); found is false when the
// field is absent.
func containersAt(obj *unstructured.Unstructured, path []string) ([]interface{}, bool, error) {
	v, found, err := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if err != nil || !found || v == nil {
		return nil, false, err
	}
	list, ok := v.([]interface{})
	if !ok {
		return nil, false, fmt.Errorf("%v accessor error: %v is of the type %T, expected []interface{}", pointer(path), v, v)
	}
	return list, true, nil
}
