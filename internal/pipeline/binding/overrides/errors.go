package overrides

import (
	"errors"
	"fmt"
)

// Error is a failure to apply one overrider. Policy and Rule are set by
// Set.Apply; Overrider and Path by the overrider that failed.
type Error struct {
	// Policy is e.g. "OverridePolicy default/nginx-op" or
	// "ClusterOverridePolicy images".
	Policy string
	// Rule is the index in spec.overrideRules, or -1 for the deprecated
	// spec.targetCluster/spec.overriders pair.
	Rule int
	// Overrider is e.g. "imageOverrider[0]".
	Overrider string
	// Path is the JSON pointer the overrider reads or writes, when known.
	Path string
	Err  error
}

func (e *Error) Error() string {
	rule := "spec.overriders"
	if e.Rule >= 0 {
		rule = fmt.Sprintf("overrideRules[%d]", e.Rule)
	}
	msg := fmt.Sprintf("%s %s %s", e.Policy, rule, e.Overrider)
	if e.Path != "" {
		msg += fmt.Sprintf(" path %q", e.Path)
	}
	return msg + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// overriderError starts an Error for the i-th overrider of kind.
func overriderError(kind string, i int, path string, err error) *Error {
	return &Error{Overrider: fmt.Sprintf("%s[%d]", kind, i), Path: path, Err: err}
}

// errUnsupportedOperator is returned for an operator an overrider kind does
// not support (the CRD enums normally prevent it).
var errUnsupportedOperator = errors.New("unsupported operator")
