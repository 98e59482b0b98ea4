package estimatorserver

import (
	"math"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/shared/resourcename"
)

// pluginResourceQuota is the name of Karmada's estimating plugin whose
// answer the quota step gives (the estimating_plugin label).
const pluginResourceQuota = "ResourceQuotaEstimator"

// objectCountPrefix names the object count quotas (count/<resource>),
// which look like extended resources but no replica requests them.
const objectCountPrefix = "count/"

// unlimited is the answer of a quota step that found no constraint.
const unlimited = math.MaxInt32

// quotaLimit is one ResourceQuota as an estimate reads it: the scopes that
// decide which replicas it charges, and what is left of each compute
// resource it caps (hard minus used: CPU in milli-units, others in units;
// negative when used exceeds hard).
type quotaLimit struct {
	scopes []corev1.ScopedResourceSelectorRequirement
	free   map[corev1.ResourceName]int64
}

// limitOf reads rq's status. Only requested compute resources count, as
// the request carries requests alone: cpu and memory (with or without the
// "requests." prefix; when both are capped the smaller room wins) and
// extended resources. Limits, storage and object counts are not read, nor
// a resource whose usage the quota controller has not recorded yet.
func limitOf(rq *corev1.ResourceQuota) quotaLimit {
	l := quotaLimit{free: map[corev1.ResourceName]int64{}}
	for _, s := range rq.Spec.Scopes {
		l.scopes = append(l.scopes, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if rq.Spec.ScopeSelector != nil {
		l.scopes = append(l.scopes, rq.Spec.ScopeSelector.MatchExpressions...)
	}
	for name, hard := range rq.Status.Hard {
		used, ok := rq.Status.Used[name]
		if !ok {
			continue
		}
		requested := corev1.ResourceName(strings.TrimPrefix(string(name), corev1.DefaultResourceRequestsPrefix))
		if strings.HasPrefix(string(name), objectCountPrefix) ||
			(requested != corev1.ResourceCPU && requested != corev1.ResourceMemory && !resourcename.IsExtended(requested)) {
			continue
		}
		room := amount(requested, hard) - amount(requested, used)
		if old, seen := l.free[requested]; !seen || room < old {
			l.free[requested] = room
		}
	}
	return l
}

// appliesTo reports whether the quota charges a replica of priority class
// pc, as Karmada's estimator decides it: a quota without scopes charges
// every replica, one with scopes when any of them matches. Only the
// PriorityClass scope can match, the request saying nothing of the other
// scopes (terminating, best effort, cross-namespace affinity).
func (l *quotaLimit) appliesTo(pc string) bool {
	if len(l.scopes) == 0 {
		return true
	}
	for _, s := range l.scopes {
		if s.ScopeName == corev1.ResourceQuotaScopePriorityClass && priorityMatches(s, pc) {
			return true
		}
	}
	return false
}

// priorityMatches evaluates one PriorityClass scope requirement against
// pc; a replica without a class has no value for the scope. A requirement
// that is not a valid selector matches nothing.
func priorityMatches(s corev1.ScopedResourceSelectorRequirement, pc string) bool {
	var op selection.Operator
	switch s.Operator {
	case corev1.ScopeSelectorOpIn:
		op = selection.In
	case corev1.ScopeSelectorOpNotIn:
		op = selection.NotIn
	case corev1.ScopeSelectorOpExists:
		return pc != ""
	case corev1.ScopeSelectorOpDoesNotExist:
		op = selection.DoesNotExist
	default:
		return false
	}
	req, err := labels.NewRequirement(string(s.ScopeName), op, s.Values)
	if err != nil {
		return false
	}
	set := labels.Set{}
	if pc != "" {
		set[string(s.ScopeName)] = pc
	}
	return req.Matches(set)
}

// quotaDemand is count replicas of one priority class each requesting
// request.
type quotaDemand struct {
	priorityClass string
	request       map[corev1.ResourceName]int64
	count         int64
}

// maxByQuota is how many times the demands of set fit in every quota of
// limits, after the assumed demands charged to each: per quota, the
// demands it applies to are summed into one unit (a replica, or a
// complete component set), the assumed ones it applies to are deducted
// from its room (none left if that overdraws a resource), and the room of
// each resource the unit requests is divided by the unit's need. A quota
// that charges no demand of set, or caps none of the unit's resources, does
// not constrain; the answer is unlimited when no quota does.
func maxByQuota(limits []quotaLimit, set, assumed []quotaDemand) int64 {
	best := int64(unlimited)
	for i := range limits {
		l := &limits[i]
		unit := l.charge(set)
		if len(unit) == 0 {
			continue
		}
		room := l.free
		if taken := l.charge(assumed); len(taken) > 0 {
			room = make(map[corev1.ResourceName]int64, len(l.free))
			for name, free := range l.free {
				room[name] = free - taken[name]
				if taken[name] > 0 && room[name] < 0 {
					return 0
				}
			}
		}
		for name, need := range unit {
			if free, capped := room[name]; capped && need > 0 {
				best = min(best, max(free/need, 0))
			}
		}
	}
	return best
}

// charge sums, per resource the quota caps, what the demands it applies
// to request, saturating at MaxInt64.
func (l *quotaLimit) charge(demands []quotaDemand) map[corev1.ResourceName]int64 {
	var out map[corev1.ResourceName]int64
	for _, d := range demands {
		if d.count <= 0 || !l.appliesTo(d.priorityClass) {
			continue
		}
		if out == nil {
			out = map[corev1.ResourceName]int64{}
		}
		for name, v := range d.request {
			if _, capped := l.free[name]; capped {
				out[name] = addSaturated(out[name], mulSaturated(v, d.count))
			}
		}
	}
	return out
}

func mulSaturated(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func addSaturated(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// quotaLedger keeps every namespace's quotas as limits, from the
// ResourceQuota informer's events, so that a request reads the few limits
// of its namespace without parsing the quotas again.
type quotaLedger struct {
	mu          sync.RWMutex
	byNamespace map[string]map[string]quotaLimit
}

func newQuotaLedger() *quotaLedger {
	return &quotaLedger{byNamespace: map[string]map[string]quotaLimit{}}
}

func (q *quotaLedger) set(namespace, name string, l *quotaLimit) {
	q.mu.Lock()
	defer q.mu.Unlock()
	quotas := q.byNamespace[namespace]
	if l == nil {
		delete(quotas, name)
		if len(quotas) == 0 {
			delete(q.byNamespace, namespace)
		}
		return
	}
	if quotas == nil {
		quotas = map[string]quotaLimit{}
		q.byNamespace[namespace] = quotas
	}
	quotas[name] = *l
}

// limits returns the limits of namespace; a limit is replaced whole on a
// change, never modified, so the caller may read them unlocked.
func (q *quotaLedger) limits(namespace string) []quotaLimit {
	q.mu.RLock()
	defer q.mu.RUnlock()
	out := make([]quotaLimit, 0, len(q.byNamespace[namespace]))
	for _, l := range q.byNamespace[namespace] {
		out = append(out, l)
	}
	return out
}

// handler is the ResourceQuota informer's event handler feeding the ledger.
func (q *quotaLedger) handler() cache.ResourceEventHandler {
	record := func(obj any) {
		if rq, ok := obj.(*corev1.ResourceQuota); ok {
			l := limitOf(rq)
			q.set(rq.Namespace, rq.Name, &l)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
		DeleteFunc: func(obj any) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				if ns, name, err := cache.SplitMetaNamespaceKey(key); err == nil {
					q.set(ns, name, nil)
				}
			}
		},
	}
}
