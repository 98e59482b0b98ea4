package workstatus

import (
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/compactcache"
	"github.com/propel-mc/propel/internal/shared/workapply"
)

// heldOutcome is an Outcome as the store keeps it until its status is
// written. The member objects the execution controller applied are kept
// in the member caches' compact form (JSON without managedFields, which
// no reflection reads, as in the caches) instead of decoded: while this
// stage lags behind the execution controller thousands of them wait here,
// and a decoded Unstructured costs several times its JSON.
type heldOutcome struct {
	// outcome is the Outcome without its manifests' Objects.
	outcome workapply.Outcome
	// applied are the applied member objects by manifest ordinal.
	applied map[int]*compactcache.Object
}

// hold returns o in its held form. It does not modify o or its objects,
// which the execution controller goes on reading.
func hold(o workapply.Outcome) *heldOutcome {
	h := &heldOutcome{outcome: o}
	if len(o.Manifests) == 0 {
		return h
	}
	h.outcome.Manifests = make([]workapply.Manifest, len(o.Manifests))
	for i, m := range o.Manifests {
		h.outcome.Manifests[i] = workapply.Manifest{Ref: m.Ref, Err: m.Err}
		if m.Object == nil {
			continue
		}
		c, err := compactcache.Compact(withoutSharedMetadata(m.Object))
		if err != nil {
			// Not encodable (it came decoded from JSON, so it cannot
			// happen): the member cache's copy stands for it, as for an
			// object the cache shows first.
			continue
		}
		if h.applied == nil {
			h.applied = make(map[int]*compactcache.Object, len(o.Manifests))
		}
		h.applied[m.Ref.Ordinal] = &c
	}
	return h
}

// withoutSharedMetadata is a shallow copy of u whose top level and
// metadata maps are its own, so that Compact removing managedFields
// leaves u as it was.
func withoutSharedMetadata(u *unstructured.Unstructured) *unstructured.Unstructured {
	c := &unstructured.Unstructured{Object: maps.Clone(u.Object)}
	if md, ok := c.Object["metadata"].(map[string]interface{}); ok {
		c.Object["metadata"] = maps.Clone(md)
	}
	return c
}

// appliedObjects decodes the applied member objects by manifest ordinal;
// one that does not decode is left out (the member cache's copy stands).
func (h *heldOutcome) appliedObjects() map[int]*unstructured.Unstructured {
	objs := make(map[int]*unstructured.Unstructured, len(h.applied))
	for ordinal, c := range h.applied {
		if u, err := c.Decode(); err == nil {
			objs[ordinal] = u
		}
	}
	return objs
}
