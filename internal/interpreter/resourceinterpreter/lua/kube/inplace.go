package kube

import (
	glua "github.com/yuin/gopher-lua"
)

// Templates read in place. Scripts mostly pass a template straight from
// their argument (kube.accuratePodRequirements(obj.spec.template)); the
// argument is then still a proxy of the caller's Go object, which the
// native layer's field readers can read directly. That skips writing the
// template's canonical JSON and decoding it into a PodTemplateSpec, the
// bulk of a call on an object the memo has not seen (measured: every
// object in a controller is a fresh decode).
//
// The canonical path leaves empty tables and nulls out before decoding,
// where reading in place sees them; the two differ only where emptiness
// or presence changes the result (a present but empty nodeSelector makes a
// node claim in place, nothing once left out). Templates with such fields
// take the canonical path, as do templates a script built or changed and
// any template the field readers refuse, so that its error is reported as
// before. FuzzTemplateInPlace holds the two paths equal.
//
// One difference remains by choice: in place, field names match exactly,
// as the API server writes them; Go's JSON decoding in the canonical path
// (and in Karmada's) also matches other letter cases
// ("ServiceAccountName"), which only a CRD preserving unknown fields could
// store.

// templateInPlace returns argument i as the caller's Go object when the
// script passed it on untouched and reading it in place is exact.
func (m *module) templateInPlace(L *glua.LState, i int) (map[string]any, bool) {
	t, ok := L.Get(i).(*glua.LTable)
	if !ok {
		return nil, false
	}
	v, ok := m.st.Untouched(t)
	if !ok {
		return nil, false
	}
	tmpl, ok := v.(map[string]any)
	if !ok || !readableInPlace(tmpl) {
		return nil, false
	}
	return tmpl, true
}

// readableInPlace reports whether the fields of tmpl's pod spec that the
// native readers treat by presence hold no empty object, empty list or
// null that the canonical path would leave out.
func readableInPlace(tmpl map[string]any) bool {
	spec, ok := tmpl["spec"].(map[string]any)
	if !ok {
		return tmpl["spec"] == nil
	}
	if v, present := spec["nodeSelector"]; present && !fullTree(v) {
		return false
	}
	if v, present := spec["tolerations"]; present && !fullTree(v) {
		return false
	}
	if affinity, ok := spec["affinity"].(map[string]any); ok {
		if na, ok := affinity["nodeAffinity"].(map[string]any); ok {
			if v, present := na["requiredDuringSchedulingIgnoredDuringExecution"]; present && !fullTree(v) {
				return false
			}
		}
	}
	if v, present := spec["overhead"]; present && !fullTree(v) {
		return false
	}
	for _, list := range []string{"containers", "initContainers"} {
		containers, _ := spec[list].([]any)
		for _, c := range containers {
			c, ok := c.(map[string]any)
			if !ok {
				return false
			}
			resources, ok := c["resources"].(map[string]any)
			if !ok {
				continue
			}
			for _, rl := range []string{"requests", "limits"} {
				if v, present := resources[rl]; present && v != nil && !fullTree(v) {
					return false
				}
			}
		}
	}
	return true
}

// fullTree reports whether v and everything under it hold no null, empty
// object or empty list.
func fullTree(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case map[string]any:
		if len(v) == 0 {
			return false
		}
		for _, e := range v {
			if !fullTree(e) {
				return false
			}
		}
	case []any:
		if len(v) == 0 {
			return false
		}
		for _, e := range v {
			if !fullTree(e) {
				return false
			}
		}
	}
	return true
}
