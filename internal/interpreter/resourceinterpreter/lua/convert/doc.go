// Package convert owns the one conversion between Go values and Lua
// tables that customization scripts see, with Karmada's rules (objects
// go through JSON: null members and elements vanish, numbers are float64,
// {} and [] are both an empty table; results come back through JSON:
// empty tables are [] and are repaired against the reference objects,
// integral numbers become int64 in unstructured objects).
//
// Go -> Lua: objects become lazy proxies converted one level at a time,
// when the script reaches them (lazy.go); statuses, read whole, are decoded
// from their JSON bytes straight into tables (jsonlua.go), built pre-sized,
// with interned strings and reused per state, through gopher-lua's public
// API only (tables.go).
//
// Lua -> Go: tables are written as JSON (jsonwriter.go) for typed results
// and canonical keys, or converted into Go values and repaired against the
// references (togo.go, repair.go) for objects and raw statuses. Replica
// requirements of the common shape are converted straight into their typed
// value (requirements.go).
//
// A State holds one Lua state's conversion state (proxies, table builder,
// scratch buffers); it is used by one call at a time.
package convert
