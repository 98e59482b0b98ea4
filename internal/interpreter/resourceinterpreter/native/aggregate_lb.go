package native

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// aggregateService collects the load-balancer ingress points of every
// member, for LoadBalancer Services only. The status is replaced.
func aggregateService(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	serviceType, err := stringAt(obj, "spec", "type")
	if err != nil {
		return nil, err
	}
	if serviceType != string(corev1.ServiceTypeLoadBalancer) {
		return obj, nil
	}
	var ingress []corev1.LoadBalancerIngress
	return aggregateTyped(obj, items, func(_ *workv1alpha2.AggregatedStatusItem, m *corev1.ServiceStatus) {
		ingress = append(ingress, m.LoadBalancer.Ingress...)
	}, func() corev1.ServiceStatus {
		return corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: serviceIngress.dedupe(ingress)}}
	})
}

// aggregateIngress collects the load-balancer ingress points of every
// member. The status is replaced.
func aggregateIngress(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var ingress []networkingv1.IngressLoadBalancerIngress
	return aggregateTyped(obj, items, func(_ *workv1alpha2.AggregatedStatusItem, m *networkingv1.IngressStatus) {
		ingress = append(ingress, m.LoadBalancer.Ingress...)
	}, func() networkingv1.IngressStatus {
		return networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: ingressIngress.dedupe(ingress)}}
	})
}

// portKey identifies a port status; a nil error differs from an empty one.
type portKey struct {
	port     int32
	protocol string
	hasError bool
	error    string
}

func servicePortKey(p corev1.PortStatus) portKey {
	return portKey{port: p.Port, protocol: string(p.Protocol), hasError: p.Error != nil, error: deref(p.Error, "")}
}

func ingressPortKey(p networkingv1.IngressPortStatus) portKey {
	return portKey{port: p.Port, protocol: string(p.Protocol), hasError: p.Error != nil, error: deref(p.Error, "")}
}

// comparePorts orders by port, protocol, then error (none first).
func comparePorts(a, b portKey) int {
	if c := cmp.Compare(a.port, b.port); c != 0 {
		return c
	}
	if c := cmp.Compare(a.protocol, b.protocol); c != 0 {
		return c
	}
	if a.hasError != b.hasError {
		if a.hasError {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.error, b.error)
}

// ingressKey identifies a load-balancer ingress point.
type ingressKey struct {
	hostname, ip string
	hasIPMode    bool
	ipMode       string
}

// compareIngress orders non-empty hostnames (ascending) before empty ones,
// then by IP, then by IP mode (none last).
func compareIngress(a, b ingressKey) int {
	if a.hostname != b.hostname {
		switch {
		case a.hostname == "":
			return 1
		case b.hostname == "":
			return -1
		}
		return cmp.Compare(a.hostname, b.hostname)
	}
	if c := cmp.Compare(a.ip, b.ip); c != 0 {
		return c
	}
	if a.hasIPMode != b.hasIPMode {
		if a.hasIPMode {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.ipMode, b.ipMode)
}

// grouped is one distinct ingress point with the union of its ports.
type grouped[P any] struct {
	key   ingressKey
	first int // index of the first entry of the group
	ports map[portKey]P
}

// groupIngress groups entries by key, merging their ports, and returns the
// groups sorted.
func groupIngress[E, P any](entries []E, key func(E) ingressKey, ports func(E) []P, pkey func(P) portKey) []*grouped[P] {
	var groups []*grouped[P]
	index := map[ingressKey]*grouped[P]{}
	for i, e := range entries {
		k := key(e)
		g := index[k]
		if g == nil {
			g = &grouped[P]{key: k, first: i}
			index[k] = g
			groups = append(groups, g)
		}
		for _, p := range ports(e) {
			if g.ports == nil {
				g.ports = map[portKey]P{}
			}
			g.ports[pkey(p)] = p
		}
	}
	slices.SortFunc(groups, func(a, b *grouped[P]) int { return compareIngress(a.key, b.key) })
	return groups
}

// sortedPorts lists the union of a group's ports in order, nil when none.
func sortedPorts[P any](ports map[portKey]P) []P {
	if len(ports) == 0 {
		return nil
	}
	keys := make([]portKey, 0, len(ports))
	for k := range ports {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, comparePorts)
	out := make([]P, len(keys))
	for i, k := range keys {
		out[i] = ports[k]
	}
	return out
}

// ingressForm is how a kind lists its load-balancer ingress points: E is
// an entry (a Service's or an Ingress's), P a port status of one.
type ingressForm[E, P any] struct {
	key      func(E) ingressKey
	ports    func(E) []P
	portKey  func(P) portKey
	setPorts func(*E, []P)
}

var (
	// serviceIngress tells entries apart by (hostname, ip, ipMode).
	serviceIngress = ingressForm[corev1.LoadBalancerIngress, corev1.PortStatus]{
		key: func(e corev1.LoadBalancerIngress) ingressKey {
			var mode string
			if e.IPMode != nil {
				mode = string(*e.IPMode)
			}
			return ingressKey{hostname: e.Hostname, ip: e.IP, hasIPMode: e.IPMode != nil, ipMode: mode}
		},
		ports:    func(e corev1.LoadBalancerIngress) []corev1.PortStatus { return e.Ports },
		portKey:  servicePortKey,
		setPorts: func(e *corev1.LoadBalancerIngress, ports []corev1.PortStatus) { e.Ports = ports },
	}
	// ingressIngress tells entries apart by (hostname, ip).
	ingressIngress = ingressForm[networkingv1.IngressLoadBalancerIngress, networkingv1.IngressPortStatus]{
		key: func(e networkingv1.IngressLoadBalancerIngress) ingressKey {
			return ingressKey{hostname: e.Hostname, ip: e.IP}
		},
		ports:   func(e networkingv1.IngressLoadBalancerIngress) []networkingv1.IngressPortStatus { return e.Ports },
		portKey: ingressPortKey,
		setPorts: func(e *networkingv1.IngressLoadBalancerIngress, ports []networkingv1.IngressPortStatus) {
			e.Ports = ports
		},
	}
)

// dedupe merges the entries that are the same ingress point and sorts
// them; nil when there are none.
func (f ingressForm[E, P]) dedupe(entries []E) []E {
	if len(entries) == 0 {
		return nil
	}
	groups := groupIngress(entries, f.key, f.ports, f.portKey)
	out := make([]E, len(groups))
	for i, g := range groups {
		out[i] = entries[g.first]
		f.setPorts(&out[i], sortedPorts(g.ports))
	}
	return out
}

// reachable reports whether an entry has a hostname or an IP.
func (f ingressForm[E, P]) reachable(entries []E) bool {
	for _, e := range entries {
		if k := f.key(e); k.hostname != "" || k.ip != "" {
			return true
		}
	}
	return false
}
