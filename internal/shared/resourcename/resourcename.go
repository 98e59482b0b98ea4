// Package resourcename classifies resource names as Kubernetes does, for
// the places that read pod requests and quotas (the interpreter's pod
// template requirements, the scheduler estimator's ResourceQuota step).
package resourcename

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
)

// IsExtended reports whether name is an extended resource: a
// domain-prefixed name outside kubernetes.io that is valid as a quota name
// ("requests.<name>").
func IsExtended(name corev1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) ||
		strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(content.IsLabelKey(corev1.DefaultResourceRequestsPrefix+s)) == 0
}
