package names

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// BindingName is Karmada's binding name for a template: lowercase
// "<name>-<kind>", with ':' in the name replaced by '.'.
func BindingName(kind, name string) string {
	return strings.ToLower(strings.ReplaceAll(name, ":", ".") + "-" + kind)
}

// WorkName is Karmada's Work name for a template: the sanitized, lowercase
// name followed by the safe-encoded FNV-32a of "<ns>-<name>-<kind>" (no
// namespace part for cluster-scoped templates). Both use the sanitized name
// (':' replaced by '.').
func WorkName(kind, name, namespace string) string {
	name = strings.ReplaceAll(name, ":", ".")
	key := strings.ToLower(name + "-" + kind)
	if namespace != "" {
		key = strings.ToLower(namespace + "-" + name + "-" + kind)
	}
	return strings.ToLower(name) + "-" + hashString(key)
}

// DependedByLabelKey is the label an attached binding carries for the
// independent binding namespace/name that needs it.
func DependedByLabelKey(bindingNamespace, bindingName string) string {
	key := bindingName
	if bindingNamespace != "" {
		key = bindingNamespace + "/" + bindingName
	}
	return DependedByLabelKeyPrefix + hashString(key)
}

// ExecutionSpace is the namespace holding the Works of cluster.
func ExecutionSpace(cluster string) string { return ExecutionSpacePrefix + cluster }

// ClusterOfExecutionSpace reverses ExecutionSpace.
func ClusterOfExecutionSpace(namespace string) (string, error) {
	cluster, ok := strings.CutPrefix(namespace, ExecutionSpacePrefix)
	if !ok || cluster == "" {
		return "", fmt.Errorf("namespace %q is not an execution space (prefix %q)", namespace, ExecutionSpacePrefix)
	}
	return cluster, nil
}

// hashString is FNV-32a in decimal with each digit mapped to a character
// that never forms a bad word (Kubernetes' SafeEncodeString alphabet).
func hashString(s string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return safeEncode(strconv.FormatUint(uint64(h.Sum32()), 10))
}

const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func safeEncode(s string) string {
	out := []byte(s)
	for i, c := range out {
		out[i] = safeAlphabet[int(c)%len(safeAlphabet)]
	}
	return string(out)
}
