package convert

import (
	glua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Requirements converts t, the replica requirements a script returns
// (GetReplicas's second result): a typed result is copied; the common
// shape (what kube.accuratePodRequirements returns without tolerations or
// affinity) is converted directly; anything else goes through JSON, whose
// result the direct path reproduces exactly when it applies (held by
// FuzzJSONWriterMatchesEncoder).
func (st *State) Requirements(t *glua.LTable) (*workv1alpha2.ReplicaRequirements, error) {
	if v, ok := st.Typed(t); ok {
		if req, ok := v.(*workv1alpha2.ReplicaRequirements); ok {
			return req.DeepCopy(), nil
		}
	}
	if req, ok := directRequirements(st, t); ok {
		return req, nil
	}
	req := &workv1alpha2.ReplicaRequirements{}
	return req, st.DecodeInto(t, req)
}

func directRequirements(st *State, t *glua.LTable) (*workv1alpha2.ReplicaRequirements, bool) {
	st.Fill(t)
	req := &workv1alpha2.ReplicaRequirements{}
	ok := true
	t.ForEach(func(k, v glua.LValue) {
		if !ok {
			return
		}
		switch k {
		case glua.LString("resourceRequest"):
			req.ResourceRequest, ok = directResourceList(st, v)
		case glua.LString("nodeClaim"):
			req.NodeClaim, ok = directNodeClaim(st, v)
		case glua.LString("namespace"):
			req.Namespace, ok = plainString(v)
		case glua.LString("priorityClassName"):
			req.PriorityClassName, ok = plainString(v)
		default:
			ok = false
		}
	})
	return req, ok
}

func plainString(v glua.LValue) (string, bool) {
	s, ok := v.(glua.LString)
	return string(s), ok
}

// directResourceList converts {name = "quantity"}; an empty table is
// absent, as the repair would drop it.
func directResourceList(st *State, v glua.LValue) (corev1.ResourceList, bool) {
	t, ok := v.(*glua.LTable)
	if !ok {
		return nil, false
	}
	if st.Fill(t); t.Len() > 0 {
		return nil, false
	}
	var list corev1.ResourceList
	t.ForEach(func(k, v glua.LValue) {
		name, kOK := k.(glua.LString)
		s, vOK := v.(glua.LString)
		if !ok || !kOK || !vOK {
			ok = false
			return
		}
		q, err := resource.ParseQuantity(string(s))
		if err != nil {
			ok = false
			return
		}
		if list == nil {
			list = corev1.ResourceList{}
		}
		list[corev1.ResourceName(name)] = q
	})
	return list, ok
}

// directNodeClaim converts {nodeSelector = {...}} only.
func directNodeClaim(st *State, v glua.LValue) (*workv1alpha2.NodeClaim, bool) {
	t, ok := v.(*glua.LTable)
	if !ok {
		return nil, false
	}
	if st.Fill(t); t.Len() > 0 {
		return nil, false
	}
	var claim *workv1alpha2.NodeClaim
	t.ForEach(func(k, v glua.LValue) {
		if !ok || k != glua.LString("nodeSelector") {
			ok = false
			return
		}
		sel, selOK := directStringMap(st, v)
		if !selOK {
			ok = false
			return
		}
		if sel != nil {
			claim = &workv1alpha2.NodeClaim{NodeSelector: sel}
		}
	})
	if k, _ := t.Next(glua.LNil); ok && claim == nil && k != glua.LNil {
		// {nodeSelector = {}}: the empty selector is dropped, the claim stays.
		claim = &workv1alpha2.NodeClaim{}
	}
	return claim, ok
}

func directStringMap(st *State, v glua.LValue) (map[string]string, bool) {
	t, ok := v.(*glua.LTable)
	if !ok {
		return nil, false
	}
	if st.Fill(t); t.Len() > 0 {
		return nil, false
	}
	var m map[string]string
	t.ForEach(func(k, v glua.LValue) {
		ks, kOK := k.(glua.LString)
		vs, vOK := v.(glua.LString)
		if !ok || !kOK || !vOK {
			ok = false
			return
		}
		if m == nil {
			m = map[string]string{}
		}
		m[string(ks)] = string(vs)
	})
	return m, ok
}
