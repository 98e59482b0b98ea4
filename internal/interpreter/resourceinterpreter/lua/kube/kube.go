package kube

import (
	"fmt"
	"math"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/convert"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// ModuleName is the name scripts require the module by.
const ModuleName = "kube"

// Options configures the module. They are fixed for the life of a VM: the
// memo remembers results computed with them, so the states sharing a memo
// must share their Options too.
type Options struct {
	// PriorityClassName makes accuratePodRequirements report the pod's
	// priorityClassName, as Karmada's helper does under the
	// ResourceQuotaEstimate feature gate (alpha, off by default). Karmada
	// reads that process-wide gate for its native and Lua interpreters
	// alike.
	PriorityClassName bool
}

// Module returns the kube module of L: its functions convert through st,
// L's conversion state, and remember their pod-template results in memo
// (shared by the states of a VM; nil remembers nothing).
func Module(L *glua.LState, st *convert.State, memo *Memo, opts Options) *glua.LTable {
	m := &module{st: st, memo: memo, opts: opts}
	return L.SetFuncs(L.NewTable(), map[string]glua.LGFunction{
		"resourceAdd":             kubeResourceAdd,
		"accuratePodRequirements": m.accuratePodRequirements,
		"getPodDependencies":      m.getPodDependencies,
		"getResourceQuantity":     kubeGetResourceQuantity,
	})
}

// module holds what the functions of one state's module share.
type module struct {
	st   *convert.State
	memo *Memo
	opts Options
}

// maxQuantityExponent bounds the decimal exponent of a quantity argument:
// the syntax allows "1e999999999", and adding it to "1" built a number of
// a billion digits in one call. The largest suffix, E, is 1e18.
const maxQuantityExponent = 64

// decimalExponentBeyond reports whether s ends with a decimal exponent
// ("e" or "E", a sign, digits) over limit in absolute value.
func decimalExponentBeyond(s string, limit int) bool {
	end := len(s)
	start := end
	for start > 0 && s[start-1] >= '0' && s[start-1] <= '9' {
		start--
	}
	digits := s[start:end]
	if start > 0 && (s[start-1] == '+' || s[start-1] == '-') {
		start--
	}
	if digits == "" || start == 0 || (s[start-1] != 'e' && s[start-1] != 'E') {
		return false
	}
	n := 0
	for _, c := range digits {
		if n = n*10 + int(c-'0'); n > limit {
			return true
		}
	}
	return false
}

// quantityArg reads argument i: a quantity string, or nil for zero.
func quantityArg(L *glua.LState, i int) resource.Quantity {
	switch v := L.Get(i).(type) {
	case *glua.LNilType:
		return resource.Quantity{}
	case glua.LString:
		// Before parsing: parsing "1e-999999999" alone does not end.
		if decimalExponentBeyond(string(v), maxQuantityExponent) {
			L.ArgError(i, fmt.Sprintf("invalid quantity %q: its exponent is beyond the limit of ±%d", string(v), maxQuantityExponent))
		}
		q, err := resource.ParseQuantity(string(v))
		if err != nil {
			L.ArgError(i, fmt.Sprintf("invalid quantity %q: %v", string(v), err))
		}
		return q
	default:
		L.TypeError(i, glua.LTString)
	}
	return resource.Quantity{}
}

// kubeResourceAdd sums quantity strings: kube.resourceAdd("1Gi", "512Mi")
// is "1536Mi". The result takes the format of the first non-zero operand.
func kubeResourceAdd(L *glua.LState) int {
	var total resource.Quantity
	for i, top := 1, L.GetTop(); i <= top; i++ {
		total.Add(quantityArg(L, i))
	}
	L.Push(glua.LString(total.String()))
	return 1
}

// kubeGetResourceQuantity returns the approximate value of a quantity.
func kubeGetResourceQuantity(L *glua.LState) int {
	if L.GetTop() != 1 {
		L.RaiseError("getResourceQuantity only accepts one argument")
	}
	q := quantityArg(L, 1)
	f := q.AsApproximateFloat64()
	if f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		L.RaiseError("quantity %s cannot be represented as a non-negative finite number", q.String())
	}
	L.Push(glua.LNumber(f))
	return 1
}

// accuratePodRequirements computes the per-replica requirements of a pod
// template exactly as the native GetReplicas does, priorityClassName
// included when Options.PriorityClassName is set.
func (m *module) accuratePodRequirements(L *glua.LState) int {
	if L.GetTop() != 1 {
		L.RaiseError("getPodRequirements only accepts one argument")
	}
	L.Push(m.requirementsToLua(m.podRequirements(L, 1)))
	return 1
}

// kubeGetPodDependencies lists the ConfigMaps, Secrets, ServiceAccount and
// PersistentVolumeClaims a pod template refers to, as the native
// GetDependencies does; the namespace defaults to "default".
func (m *module) getPodDependencies(L *glua.LState) int {
	if L.GetTop() != 2 {
		L.RaiseError("getPodDependencies only accepts two argument")
	}
	namespace := "default"
	if L.Get(2) != glua.LNil {
		namespace = L.CheckString(2)
	}
	deps := m.podDependencies(L, 1, namespace)
	if len(deps) == 0 {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(m.dependenciesToLua(deps))
	return 1
}

// requirementsToLua hands req to the script as a proxy remembering it;
// its JSON form is built only if something reads it.
func (m *module) requirementsToLua(req *workv1alpha2.ReplicaRequirements) glua.LValue {
	if req == nil {
		return glua.LNil
	}
	return m.st.TypedProxy(func() any { return requirementsGeneric(req) }, req)
}

// requirementsGeneric is the JSON form of req, built directly.
func requirementsGeneric(req *workv1alpha2.ReplicaRequirements) map[string]any {
	m := make(map[string]any, 4)
	if nc := req.NodeClaim; nc != nil {
		claim := make(map[string]any, 3)
		if nc.HardNodeAffinity != nil {
			claim["hardNodeAffinity"] = generic(nc.HardNodeAffinity)
		}
		if len(nc.NodeSelector) > 0 {
			sel := make(map[string]any, len(nc.NodeSelector))
			for k, v := range nc.NodeSelector {
				sel[k] = v
			}
			claim["nodeSelector"] = sel
		}
		if len(nc.Tolerations) > 0 {
			claim["tolerations"] = generic(nc.Tolerations)
		}
		m["nodeClaim"] = claim
	}
	if len(req.ResourceRequest) > 0 {
		rr := make(map[string]any, len(req.ResourceRequest))
		for name, q := range req.ResourceRequest {
			rr[string(name)] = q.String()
		}
		m["resourceRequest"] = rr
	}
	if req.Namespace != "" {
		m["namespace"] = req.Namespace
	}
	if req.PriorityClassName != "" {
		m["priorityClassName"] = req.PriorityClassName
	}
	return m
}

// dependenciesToLua hands deps to the script as a proxy remembering them;
// their JSON form is built only if something reads it.
func (m *module) dependenciesToLua(deps []configv1alpha1.DependentObjectReference) glua.LValue {
	return m.st.TypedProxy(func() any { return dependenciesGeneric(deps) }, deps)
}

// dependenciesGeneric is the JSON form of deps, built directly.
func dependenciesGeneric(deps []configv1alpha1.DependentObjectReference) []any {
	list := make([]any, 0, len(deps))
	for _, d := range deps {
		m := make(map[string]any, 5)
		m["apiVersion"], m["kind"] = d.APIVersion, d.Kind
		if d.Namespace != "" {
			m["namespace"] = d.Namespace
		}
		if d.Name != "" {
			m["name"] = d.Name
		}
		if d.LabelSelector != nil {
			m["labelSelector"] = generic(d.LabelSelector)
		}
		list = append(list, m)
	}
	return list
}

// generic is the JSON form of v, an API struct of strings, integers,
// pointers, maps and slices, whose encoding cannot fail; should it ever,
// the member is left out rather than raising where no script runs.
func generic(v any) any {
	g, err := convert.Generic(v)
	if err != nil {
		return nil
	}
	return g
}
