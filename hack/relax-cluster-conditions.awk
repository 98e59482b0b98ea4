# relax-cluster-conditions.awk drops the validation controller-gen copies
# from metav1.Condition's markers (required fields, lengths, patterns, the
# status enum, the generation minimum) from the Cluster CRD's
# status.conditions. Karmada serves Cluster from its aggregated API
# server, which does not validate conditions, and clients write
# conditions with an empty reason or message; the CRD must accept them.
# The types and formats stay, so the schema remains structural.
/^              conditions:$/ { inside = 1; print; next }
inside && /^              [^ ]/ { inside = 0 }
inside {
	if (list) {
		if ($0 ~ /^ *- /) next
		list = 0
	}
	if ($0 ~ /^ *(maxLength|minLength|pattern|minimum): /) next
	if ($0 ~ /^ *(enum|required):$/) { list = 1; next }
}
{ print }
