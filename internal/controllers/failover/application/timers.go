package application

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// unhealthySince records, per binding and cluster, when the controller
// first saw the cluster's copy Unhealthy.
type unhealthySince struct {
	mu sync.Mutex
	m  map[types.NamespacedName]map[string]time.Time
}

func newUnhealthySince() *unhealthySince {
	return &unhealthySince{m: map[types.NamespacedName]map[string]time.Time{}}
}

// observe returns when cluster was first seen Unhealthy, recording now
// when it was not seen before (first is then true).
func (u *unhealthySince) observe(key types.NamespacedName, cluster string, now time.Time) (since time.Time, first bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	clusters := u.m[key]
	if clusters == nil {
		clusters = map[string]time.Time{}
		u.m[key] = clusters
	}
	if t, ok := clusters[cluster]; ok {
		return t, false
	}
	clusters[cluster] = now
	return now, true
}

// keep drops the clusters of key for which keep returns false.
func (u *unhealthySince) keep(key types.NamespacedName, keep func(cluster string) bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for c := range u.m[key] {
		if !keep(c) {
			delete(u.m[key], c)
		}
	}
	if len(u.m[key]) == 0 {
		delete(u.m, key)
	}
}

// forget drops every record of key.
func (u *unhealthySince) forget(key types.NamespacedName) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.m, key)
}
