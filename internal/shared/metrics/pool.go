package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// LuaVMPool is the name label of the Lua state pool, Karmada's "luavm".
const LuaVMPool = "luavm"

// Values of the from label (where a taken state came from) and the to
// label (where a returned state went).
const (
	FromPool    = "pool"
	FromNew     = "new"
	ToPool      = "pool"
	ToDestroyed = "destroyed"
)

var (
	poolGets = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "pool_get_operation_total",
		Help: "States taken from a pool, reused (from=pool) or created (from=new).",
	}, []string{"name", "from"})
	poolPuts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "pool_put_operation_total",
		Help: "States given back to a pool, kept (to=pool) or closed (to=destroyed).",
	}, []string{"name", "to"})
)

func init() { metrics.Registry.MustRegister(poolGets, poolPuts) }

// PoolGet counts one state of pool name taken from from.
func PoolGet(name, from string) { poolGets.WithLabelValues(name, from).Inc() }

// PoolPut counts one state of pool name returned to to.
func PoolPut(name, to string) { poolPuts.WithLabelValues(name, to).Inc() }
