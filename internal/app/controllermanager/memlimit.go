package controllermanager

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// cgroupMemoryMax is where cgroup v2 publishes the container's memory limit.
var cgroupMemoryMax = "/sys/fs/cgroup/memory.max"

// applySoftMemoryLimit sets the Go runtime's soft memory limit, so the
// garbage collector works harder as the heap nears it instead of letting
// the heap grow by its GC target (managerbase.ApplyGCPercent) and the
// container be OOM-killed. Order: --soft-memory-limit; else GOMEMLIMIT (the runtime
// applied it already); else 90% of the cgroup memory limit; else none.
// It returns the limit in bytes (0: none) and where it came from.
func applySoftMemoryLimit(flag string) (int64, string, error) {
	if flag != "" {
		q, err := resource.ParseQuantity(flag)
		if err != nil || q.Value() <= 0 {
			return 0, "", fmt.Errorf("--soft-memory-limit %q: want a positive quantity such as 512Mi", flag)
		}
		debug.SetMemoryLimit(q.Value())
		return q.Value(), "--soft-memory-limit", nil
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1), "GOMEMLIMIT", nil
	}
	if limit, ok := cgroupLimit(); ok {
		soft := limit / 10 * 9
		debug.SetMemoryLimit(soft)
		return soft, "90% of " + cgroupMemoryMax, nil
	}
	return 0, "", nil
}

// cgroupLimit reads a finite cgroup v2 memory limit.
func cgroupLimit() (int64, bool) {
	data, err := os.ReadFile(cgroupMemoryMax)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return v, err == nil && v > 0
}
