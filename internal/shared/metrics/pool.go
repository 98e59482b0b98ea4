package metrics

import "github.com/propel-mc/propel/internal/shared/metricreg"

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
	poolGets = metricreg.CounterVec("pool_get_operation_total",
		"States taken from a pool, reused (from=pool) or created (from=new).", "name", "from")
	poolPuts = metricreg.CounterVec("pool_put_operation_total",
		"States given back to a pool, kept (to=pool) or closed (to=destroyed).", "name", "to")
)

// PoolGet counts one state of pool name taken from from.
func PoolGet(name, from string) { poolGets.WithLabelValues(name, from).Inc() }

// PoolPut counts one state of pool name returned to to.
func PoolPut(name, to string) { poolPuts.WithLabelValues(name, to).Inc() }
