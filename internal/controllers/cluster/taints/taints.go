// Package taints holds the operations Karmada's controllers perform on a
// Cluster's spec.taints: matching by key and effect (the value does not
// count), and the summary text their TaintClusterSucceed events carry.
package taints

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Index is the index of the first taint in list with t's key and effect,
// or -1.
func Index(list []corev1.Taint, t corev1.Taint) int {
	for i := range list {
		if list[i].MatchTaint(&t) {
			return i
		}
	}
	return -1
}

// Summary is Karmada's text for a cluster's taints in events: "cluster
// now does not have taints", or "cluster now has taints([{Key:k,Value:v,
// Effect:e},{Key:k,Effect:e}])" (the value is left out when empty).
func Summary(list []corev1.Taint) string {
	if len(list) == 0 {
		return "cluster now does not have taints"
	}
	var b strings.Builder
	b.WriteString("cluster now has taints([")
	for i, t := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("{Key:")
		b.WriteString(t.Key)
		if t.Value != "" {
			b.WriteString(",Value:")
			b.WriteString(t.Value)
		}
		b.WriteString(",Effect:")
		b.WriteString(string(t.Effect))
		b.WriteByte('}')
	}
	b.WriteString("])")
	return b.String()
}
