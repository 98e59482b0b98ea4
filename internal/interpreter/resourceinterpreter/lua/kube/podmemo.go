package kube

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	lru "github.com/hashicorp/golang-lru/v2"
	glua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// podMemoSize is the number of pod templates whose native results a VM
// remembers.
const podMemoSize = 256

// Memo remembers the results of the native pod-template computations of
// the kube module by template content (its canonical JSON). Workloads are
// interpreted again and again with the same template, and decoding it into
// a PodTemplateSpec costs more than the rest of a call. The cached results
// are never modified.
type Memo struct {
	requirements *lru.Cache[[sha256.Size]byte, *workv1alpha2.ReplicaRequirements]
	dependencies *lru.Cache[[sha256.Size]byte, []configv1alpha1.DependentObjectReference]
}

// NewMemo returns an empty memo.
func NewMemo() *Memo {
	req, err1 := lru.New[[sha256.Size]byte, *workv1alpha2.ReplicaRequirements](podMemoSize)
	deps, err2 := lru.New[[sha256.Size]byte, []configv1alpha1.DependentObjectReference](podMemoSize)
	if err1 != nil || err2 != nil {
		panic(fmt.Sprintf("lru.New(%d): %v %v", podMemoSize, err1, err2)) // only for a size <= 0
	}
	return &Memo{requirements: req, dependencies: deps}
}

// Len returns the number of templates whose requirements and whose
// dependencies are remembered.
func (m *Memo) Len() (requirements, dependencies int) {
	return m.requirements.Len(), m.dependencies.Len()
}

// templateJSON encodes argument i, a pod template table, canonically.
func (m *module) templateJSON(L *glua.LState, i int) []byte {
	data, err := m.st.CanonicalJSON(L.CheckTable(i))
	if err != nil {
		L.ArgError(i, fmt.Sprintf("not a pod template: %v", err))
	}
	return data
}

func decodeTemplate(L *glua.LState, i int, data []byte) *corev1.PodTemplateSpec {
	tmpl := &corev1.PodTemplateSpec{}
	if err := json.Unmarshal(data, tmpl); err != nil {
		L.ArgError(i, fmt.Sprintf("not a pod template: decode result into %T: %v", tmpl, err))
	}
	return tmpl
}

// podRequirements is native.AccuratePodRequirements of argument i, with
// the pod's priorityClassName under Options.PriorityClassName (set only
// when there are requirements, as in Karmada).
func (m *module) podRequirements(L *glua.LState, i int) *workv1alpha2.ReplicaRequirements {
	if tmpl, ok := m.templateInPlace(L, i); ok {
		if req, err := native.TemplateRequirements(tmpl, m.opts.PriorityClassName); err == nil {
			return req
		}
		// The canonical path below reports the error as before.
	}
	data := m.templateJSON(L, i)
	memo := m.memo
	var key [sha256.Size]byte
	if memo != nil {
		key = sha256.Sum256(data)
		if req, ok := memo.requirements.Get(key); ok {
			return req
		}
	}
	tmpl := decodeTemplate(L, i, data)
	req := native.AccuratePodRequirements(tmpl)
	if req != nil && m.opts.PriorityClassName {
		req.PriorityClassName = tmpl.Spec.PriorityClassName
	}
	if memo != nil {
		memo.requirements.Add(key, req)
	}
	return req
}

// podDependencies is native.PodDependencies of argument i in namespace.
func (m *module) podDependencies(L *glua.LState, i int, namespace string) []configv1alpha1.DependentObjectReference {
	if tmpl, ok := m.templateInPlace(L, i); ok {
		if deps, err := native.TemplateDependencies(tmpl, namespace); err == nil {
			return deps
		}
	}
	data := m.templateJSON(L, i)
	memo := m.memo
	if memo == nil {
		return native.PodDependencies(decodeTemplate(L, i, data), namespace)
	}
	h := sha256.New()
	h.Write([]byte(namespace))
	h.Write([]byte{0})
	h.Write(data)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	if deps, ok := memo.dependencies.Get(key); ok {
		return deps
	}
	deps := native.PodDependencies(decodeTemplate(L, i, data), namespace)
	memo.dependencies.Add(key, deps)
	return deps
}
