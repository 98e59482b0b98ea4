// Package builtin owns Propel's embedded interpreters for the 27 third-party
// kinds Karmada bundles (Karmada's "third-party" layer): one
// ResourceInterpreterCustomization per kind under
// customizations/<group>/<version>/<Kind>/customizations.yaml, with its test
// cases beside it in testdata/, and the "builtin" customization layer that
// serves them. The layer is consulted after the user's customizations and
// webhooks, before the native interpreters.
//
// Run answers an operation as the controller manager does for a cluster
// without customizations or webhooks (built-in, then native): it is what
// `propelctl interpret` runs without -f. Table lists the kinds and the
// operations each defines (`propelctl interpret --list-builtin`).
package builtin
