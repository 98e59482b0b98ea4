package resourcename

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestIsExtended(t *testing.T) {
	for name, want := range map[corev1.ResourceName]bool{
		"nvidia.com/gpu":          true,
		"example.com/dongle":      true,
		corev1.ResourceCPU:        false,
		corev1.ResourceMemory:     false,
		"kubernetes.io/something": false,
		"requests.nvidia.com/gpu": false,
		"hugepages-2Mi":           false,
		"bad/name/with/slashes":   false,
	} {
		if got := IsExtended(name); got != want {
			t.Errorf("IsExtended(%q) = %v, want %v", name, got, want)
		}
	}
}
