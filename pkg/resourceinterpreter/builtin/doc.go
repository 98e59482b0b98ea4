// Package builtin owns Propel's embedded ResourceInterpreterCustomizations
// for third-party workloads (Karmada's "third-party" layer): the YAML files
// under customizations/<group>/<version>/<Kind>/customizations.yaml and the
// "builtin" customization layer that serves them. The layer is consulted
// after the user's customizations and webhooks, before the native
// interpreters.
package builtin
