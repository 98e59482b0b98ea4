package localenv

import (
	"os"
	"path/filepath"
)

// KubernetesVersion is the release hack/testbin.sh builds; the cache
// directory is versioned by it so an upgrade never mixes binaries.
const KubernetesVersion = "v1.36.3"

// BinDir is where the test binaries live: $PROPEL_TESTBIN_DIR, else the
// versioned cache that hack/testbin.sh fills.
func BinDir() string {
	if d := os.Getenv("PROPEL_TESTBIN_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "propel", "testbin", KubernetesVersion)
}

// MissingBinaries lists the binaries an environment needs that BinDir lacks.
func MissingBinaries(withWorkloads bool) []string {
	need := []string{"etcd", "kube-apiserver"}
	if withWorkloads {
		need = append(need, "kube-controller-manager", "kube-scheduler", "kwok", "metrics-server")
	}
	var missing []string
	for _, b := range need {
		if _, err := os.Stat(filepath.Join(BinDir(), b)); err != nil {
			missing = append(missing, b)
		}
	}
	return missing
}

func bin(name string) string { return filepath.Join(BinDir(), name) }
