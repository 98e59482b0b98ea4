// Package assign owns replica assignment over the selected clusters:
// Duplicated, static weights, DynamicWeight (AvailableReplicas) and
// Aggregated, all Divided strategies going through the Webster
// (Sainte-Laguë) dispenser with Karmada's UID-parity tie-break, and the
// steady/fresh rules that keep existing assignments on scale up and down.
package assign
