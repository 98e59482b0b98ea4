package native

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/propel-mc/propel/internal/shared/resourcename"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// AccuratePodRequirements returns what one replica created from tmpl needs:
// the node claim (nodeSelector, tolerations, required node affinity) and the
// effective resource request (containers summed, limits standing in for
// missing requests, init containers as a per-resource maximum, plus the pod
// overhead). It returns nil when there is neither a node claim nor a
// positive resource request.
//
// PriorityClassName and Namespace are never set: Karmada fills them only
// under the ResourceQuotaEstimate feature gate, which callers handle. The
// node claim shares its nodeSelector, tolerations and affinity with tmpl.
//
// The Lua layer's kube.accuratePodRequirements uses this function too.
func AccuratePodRequirements(tmpl *corev1.PodTemplateSpec) *workv1alpha2.ReplicaRequirements {
	if tmpl == nil {
		return nil
	}
	claim := nodeClaimOf(&tmpl.Spec)
	request := podRequest(&tmpl.Spec)
	if claim == nil && request == nil {
		return nil
	}
	return &workv1alpha2.ReplicaRequirements{NodeClaim: claim, ResourceRequest: request}
}

// nodeClaimOf is nil when the pod has no nodeSelector (a present but empty
// map counts), no tolerations and no required node affinity.
func nodeClaimOf(spec *corev1.PodSpec) *workv1alpha2.NodeClaim {
	var hard *corev1.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		hard = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if spec.NodeSelector == nil && hard == nil && len(spec.Tolerations) == 0 {
		return nil
	}
	return &workv1alpha2.NodeClaim{
		HardNodeAffinity: hard,
		NodeSelector:     spec.NodeSelector,
		Tolerations:      spec.Tolerations,
	}
}

// podRequest is the effective per-pod request, nil when nothing is > 0.
func podRequest(spec *corev1.PodSpec) corev1.ResourceList {
	var acc podResources
	for i := range spec.Containers {
		effectiveRequests(&spec.Containers[i].Resources, acc.add)
	}
	for i := range spec.InitContainers {
		effectiveRequests(&spec.InitContainers[i].Resources, acc.raise)
	}
	for name, q := range spec.Overhead {
		acc.add(name, &q)
	}
	return acc.list()
}

// effectiveRequests calls fn for every request, and for every limit whose
// resource has no request (the API server defaults requests to limits).
func effectiveRequests(r *corev1.ResourceRequirements, fn func(corev1.ResourceName, *resource.Quantity)) {
	for name, q := range r.Requests {
		fn(name, &q)
	}
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			fn(name, &q)
		}
	}
}

// podResources accumulates requests the way Kubernetes' scheduler does:
// cpu in milli-units, everything else as integer units rounded up, and only
// the names it tracks (see isScalarResourceName).
type podResources struct {
	milliCPU, memory, ephemeralStorage, pods int64
	scalar                                   map[corev1.ResourceName]int64
}

// slot returns where the value of name accumulates and its value in the
// right unit, or nil for an untracked resource.
func (r *podResources) slot(name corev1.ResourceName, q *resource.Quantity) (*int64, int64) {
	switch name {
	case corev1.ResourceCPU:
		return &r.milliCPU, q.MilliValue()
	case corev1.ResourceMemory:
		return &r.memory, q.Value()
	case corev1.ResourceEphemeralStorage:
		return &r.ephemeralStorage, q.Value()
	case corev1.ResourcePods:
		return &r.pods, q.Value()
	}
	return nil, 0
}

func (r *podResources) add(name corev1.ResourceName, q *resource.Quantity) {
	if p, v := r.slot(name, q); p != nil {
		*p += v
		return
	}
	if isScalarResourceName(name) {
		r.scalarMap()[name] += q.Value()
	}
}

// raise sets the accumulated value of name to max(accumulated, q).
func (r *podResources) raise(name corev1.ResourceName, q *resource.Quantity) {
	if p, v := r.slot(name, q); p != nil {
		*p = max(*p, v)
		return
	}
	if isScalarResourceName(name) {
		m := r.scalarMap()
		m[name] = max(m[name], q.Value())
	}
}

func (r *podResources) scalarMap() map[corev1.ResourceName]int64 {
	if r.scalar == nil {
		r.scalar = map[corev1.ResourceName]int64{}
	}
	return r.scalar
}

// list renders the positive values: cpu as a decimal milli-quantity, memory,
// ephemeral storage and huge pages in binary SI, the rest in decimal SI.
func (r *podResources) list() corev1.ResourceList {
	var out corev1.ResourceList
	put := func(name corev1.ResourceName, q *resource.Quantity) {
		if out == nil {
			out = corev1.ResourceList{}
		}
		out[name] = *q
	}
	if r.milliCPU > 0 {
		put(corev1.ResourceCPU, resource.NewMilliQuantity(r.milliCPU, resource.DecimalSI))
	}
	if r.memory > 0 {
		put(corev1.ResourceMemory, resource.NewQuantity(r.memory, resource.BinarySI))
	}
	if r.ephemeralStorage > 0 {
		put(corev1.ResourceEphemeralStorage, resource.NewQuantity(r.ephemeralStorage, resource.BinarySI))
	}
	if r.pods > 0 {
		put(corev1.ResourcePods, resource.NewQuantity(r.pods, resource.DecimalSI))
	}
	for name, v := range r.scalar {
		if v <= 0 {
			continue
		}
		format := resource.DecimalSI
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			format = resource.BinarySI
		}
		put(name, resource.NewQuantity(v, format))
	}
	return out
}

// isScalarResourceName reports whether name is an extended resource, huge
// pages, a kubernetes.io-prefixed native resource or attachable volumes.
func isScalarResourceName(name corev1.ResourceName) bool {
	s := string(name)
	return resourcename.IsExtended(name) ||
		strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) ||
		strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) ||
		strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix)
}

// Kinds of the objects a pod refers to.
const (
	kindConfigMap             = "ConfigMap"
	kindSecret                = "Secret"
	kindServiceAccount        = "ServiceAccount"
	kindPersistentVolumeClaim = "PersistentVolumeClaim"
	defaultServiceAccountName = "default"
)

// PodDependencies lists the objects a pod created from tmpl in namespace
// refers to: ConfigMaps, then Secrets, then its ServiceAccount (unless
// "default"), then PersistentVolumeClaims, all "v1" in namespace. Names are
// deduplicated and sorted within each kind; empty names are skipped. It
// returns nil when there are none. Namespace is used as given (the Lua
// layer defaults it to "default", the native layer does not).
//
// The Lua layer's kube.getPodDependencies uses this function too.
func PodDependencies(tmpl *corev1.PodTemplateSpec, namespace string) []configv1alpha1.DependentObjectReference {
	if tmpl == nil {
		return nil
	}
	spec := &tmpl.Spec
	var refs []configv1alpha1.DependentObjectReference
	refs = appendRefs(refs, kindConfigMap, namespace, configMapNames(spec))
	refs = appendRefs(refs, kindSecret, namespace, secretNames(spec))
	if sa := spec.ServiceAccountName; sa != "" && sa != defaultServiceAccountName {
		refs = appendRefs(refs, kindServiceAccount, namespace, []string{sa})
	}
	return appendRefs(refs, kindPersistentVolumeClaim, namespace, claimNames(spec))
}

// appendRefs appends one v1 reference per distinct non-empty name, sorted.
func appendRefs(refs []configv1alpha1.DependentObjectReference, kind, namespace string, names []string) []configv1alpha1.DependentObjectReference {
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		if name == "" {
			continue
		}
		refs = append(refs, configv1alpha1.DependentObjectReference{
			APIVersion: corev1.SchemeGroupVersion.String(),
			Kind:       kind,
			Namespace:  namespace,
			Name:       name,
		})
	}
	return refs
}

// visitEnv calls fn with the env sources of every container, init container
// and ephemeral container.
func visitEnv(spec *corev1.PodSpec, fn func(envFrom []corev1.EnvFromSource, env []corev1.EnvVar)) {
	for i := range spec.InitContainers {
		fn(spec.InitContainers[i].EnvFrom, spec.InitContainers[i].Env)
	}
	for i := range spec.Containers {
		fn(spec.Containers[i].EnvFrom, spec.Containers[i].Env)
	}
	for i := range spec.EphemeralContainers {
		fn(spec.EphemeralContainers[i].EnvFrom, spec.EphemeralContainers[i].Env)
	}
}

func configMapNames(spec *corev1.PodSpec) []string {
	var names []string
	visitEnv(spec, func(envFrom []corev1.EnvFromSource, env []corev1.EnvVar) {
		for _, from := range envFrom {
			if from.ConfigMapRef != nil {
				names = append(names, from.ConfigMapRef.Name)
			}
		}
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				names = append(names, e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	})
	for i := range spec.Volumes {
		v := &spec.Volumes[i].VolumeSource
		if v.ConfigMap != nil {
			names = append(names, v.ConfigMap.Name)
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.ConfigMap != nil {
					names = append(names, src.ConfigMap.Name)
				}
			}
		}
	}
	return names
}

func secretNames(spec *corev1.PodSpec) []string {
	var names []string
	for _, ref := range spec.ImagePullSecrets {
		names = append(names, ref.Name)
	}
	visitEnv(spec, func(envFrom []corev1.EnvFromSource, env []corev1.EnvVar) {
		for _, from := range envFrom {
			if from.SecretRef != nil {
				names = append(names, from.SecretRef.Name)
			}
		}
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				names = append(names, e.ValueFrom.SecretKeyRef.Name)
			}
		}
	})
	for i := range spec.Volumes {
		names = appendVolumeSecretNames(names, &spec.Volumes[i].VolumeSource)
	}
	return names
}

// appendVolumeSecretNames appends the Secrets a volume source refers to.
func appendVolumeSecretNames(names []string, v *corev1.VolumeSource) []string {
	local := func(ref *corev1.LocalObjectReference) {
		if ref != nil {
			names = append(names, ref.Name)
		}
	}
	if v.Secret != nil {
		names = append(names, v.Secret.SecretName)
	}
	if v.Projected != nil {
		for _, src := range v.Projected.Sources {
			if src.Secret != nil {
				names = append(names, src.Secret.Name)
			}
		}
	}
	if v.AzureFile != nil {
		names = append(names, v.AzureFile.SecretName)
	}
	if v.CephFS != nil {
		local(v.CephFS.SecretRef)
	}
	if v.Cinder != nil {
		local(v.Cinder.SecretRef)
	}
	if v.FlexVolume != nil {
		local(v.FlexVolume.SecretRef)
	}
	if v.RBD != nil {
		local(v.RBD.SecretRef)
	}
	if v.ScaleIO != nil {
		local(v.ScaleIO.SecretRef)
	}
	if v.ISCSI != nil {
		local(v.ISCSI.SecretRef)
	}
	if v.StorageOS != nil {
		local(v.StorageOS.SecretRef)
	}
	if v.CSI != nil {
		local(v.CSI.NodePublishSecretRef)
	}
	return names
}

func claimNames(spec *corev1.PodSpec) []string {
	var names []string
	for i := range spec.Volumes {
		if pvc := spec.Volumes[i].PersistentVolumeClaim; pvc != nil {
			names = append(names, pvc.ClaimName)
		}
	}
	return names
}

// podDependenciesFrom is PodDependencies read straight from an
// unstructured pod spec (nil: an empty spec): only the names of the
// objects a pod refers to are read.
func podDependenciesFrom(spec map[string]interface{}, namespace string) ([]configv1alpha1.DependentObjectReference, error) {
	var names podRefNames
	if err := names.collect(spec); err != nil {
		return nil, err
	}
	var refs []configv1alpha1.DependentObjectReference
	refs = appendRefs(refs, kindConfigMap, namespace, names.configMaps)
	refs = appendRefs(refs, kindSecret, namespace, names.secrets)
	if sa := names.serviceAccount; sa != "" && sa != defaultServiceAccountName {
		refs = appendRefs(refs, kindServiceAccount, namespace, []string{sa})
	}
	return appendRefs(refs, kindPersistentVolumeClaim, namespace, names.claims), nil
}

// podRefNames are the names a pod spec refers to, per kind, unsorted.
type podRefNames struct {
	configMaps, secrets, claims []string
	serviceAccount              string
}

// Volume sources whose secretRef names a Secret.
var secretRefVolumeSources = [...]string{"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"}

func (n *podRefNames) collect(spec map[string]interface{}) error {
	var err error
	if n.serviceAccount, err = stringField(spec, "serviceAccountName"); err != nil {
		return err
	}
	pullSecrets, err := asSlice(spec["imagePullSecrets"])
	if err != nil {
		return at(err, "imagePullSecrets")
	}
	for _, ref := range pullSecrets {
		if n.secrets, err = appendName(n.secrets, ref, "name"); err != nil {
			return at(err, "imagePullSecrets")
		}
	}
	for _, key := range [...]string{"initContainers", "containers", "ephemeralContainers"} {
		containers, err := asSlice(spec[key])
		if err != nil {
			return at(err, key)
		}
		for _, c := range containers {
			if err := n.collectContainer(c); err != nil {
				return at(err, key)
			}
		}
	}
	volumes, err := asSlice(spec["volumes"])
	if err != nil {
		return at(err, "volumes")
	}
	for _, v := range volumes {
		if err := n.collectVolume(v); err != nil {
			return at(err, "volumes")
		}
	}
	return nil
}

func (n *podRefNames) collectContainer(v interface{}) error {
	container, err := asMap(v)
	if err != nil {
		return err
	}
	envFrom, err := asSlice(container["envFrom"])
	if err != nil {
		return at(err, "envFrom")
	}
	for _, from := range envFrom {
		m, err := asMap(from)
		if err == nil {
			n.configMaps, err = appendRefName(n.configMaps, m, "configMapRef", "name")
		}
		if err == nil {
			n.secrets, err = appendRefName(n.secrets, m, "secretRef", "name")
		}
		if err != nil {
			return at(err, "envFrom")
		}
	}
	env, err := asSlice(container["env"])
	if err != nil {
		return at(err, "env")
	}
	for _, e := range env {
		m, err := asMap(e)
		if err == nil {
			m, err = mapAt(m, "valueFrom")
		}
		if err == nil {
			n.configMaps, err = appendRefName(n.configMaps, m, "configMapKeyRef", "name")
		}
		if err == nil {
			n.secrets, err = appendRefName(n.secrets, m, "secretKeyRef", "name")
		}
		if err != nil {
			return at(err, "env")
		}
	}
	return nil
}

func (n *podRefNames) collectVolume(v interface{}) error {
	volume, err := asMap(v)
	if err != nil {
		return err
	}
	if n.configMaps, err = appendRefName(n.configMaps, volume, "configMap", "name"); err != nil {
		return err
	}
	if n.secrets, err = appendRefName(n.secrets, volume, "secret", "secretName"); err != nil {
		return err
	}
	if n.claims, err = appendRefName(n.claims, volume, "persistentVolumeClaim", "claimName"); err != nil {
		return err
	}
	if volume["projected"] != nil {
		sources, err := mapAt(volume, "projected")
		var list []interface{}
		if err == nil {
			list, err = asSlice(sources["sources"])
		}
		for i := 0; err == nil && i < len(list); i++ {
			var src map[string]interface{}
			if src, err = asMap(list[i]); err == nil {
				n.configMaps, err = appendRefName(n.configMaps, src, "configMap", "name")
			}
			if err == nil {
				n.secrets, err = appendRefName(n.secrets, src, "secret", "name")
			}
		}
		if err != nil {
			return at(err, "projected", "sources")
		}
	}
	if n.secrets, err = appendRefName(n.secrets, volume, "azureFile", "secretName"); err != nil {
		return err
	}
	for _, source := range secretRefVolumeSources {
		if volume[source] == nil {
			continue
		}
		m, err := mapAt(volume, source)
		if err == nil {
			n.secrets, err = appendRefName(n.secrets, m, "secretRef", "name")
		}
		if err != nil {
			return at(err, source)
		}
	}
	if volume["csi"] != nil {
		m, err := mapAt(volume, "csi")
		if err == nil {
			n.secrets, err = appendRefName(n.secrets, m, "nodePublishSecretRef", "name")
		}
		if err != nil {
			return at(err, "csi")
		}
	}
	return nil
}

// appendRefName appends m[ref][field] to names when it is a non-empty
// string (an absent or null reference names nothing).
func appendRefName(names []string, m map[string]interface{}, ref, field string) ([]string, error) {
	v := m[ref]
	if v == nil {
		return names, nil
	}
	names, err := appendName(names, v, field)
	return names, at(err, ref)
}

// appendName appends v[field] (v an object) when it is a non-empty string.
func appendName(names []string, v interface{}, field string) ([]string, error) {
	m, err := asMap(v)
	if err != nil {
		return names, err
	}
	name, err := stringField(m, field)
	if err != nil || name == "" {
		return names, err
	}
	return append(names, name), nil
}

// TemplateRequirements is AccuratePodRequirements read straight from an
// unstructured pod template (tmpl["spec"]) without converting it, with
// the pod's priorityClassName when withPriorityClassName is set, as the
// native GetReplicas. A field of the wrong type is an error naming it.
// The Lua layer's kube.accuratePodRequirements uses it on templates a
// script passes untouched from its arguments.
func TemplateRequirements(tmpl map[string]interface{}, withPriorityClassName bool) (*workv1alpha2.ReplicaRequirements, error) {
	spec, err := mapAt(tmpl, "spec")
	if err != nil {
		return nil, err
	}
	reqs, err := specRequirements(spec, withPriorityClassName)
	if err != nil {
		return nil, at(err, "spec")
	}
	return reqs, nil
}

// TemplateDependencies is PodDependencies read straight from an
// unstructured pod template, without converting it. The Lua layer's
// kube.getPodDependencies uses it as TemplateRequirements.
func TemplateDependencies(tmpl map[string]interface{}, namespace string) ([]configv1alpha1.DependentObjectReference, error) {
	spec, err := mapAt(tmpl, "spec")
	if err != nil {
		return nil, err
	}
	deps, err := podDependenciesFrom(spec, namespace)
	return deps, at(err, "spec")
}
