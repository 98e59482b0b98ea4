// Package lua owns the Lua virtual machine behind ResourceInterpreterCustomization
// scripts: the sandboxed gopher-lua state (the libraries Karmada opens, the
// unsafe globals it overrides), the `kube` module, the conversion of objects
// between Go and Lua (including Karmada's empty-table repair), the calling
// contract of every entry function (GetReplicas, Retain, ...), and the limits
// that keep a bad script from hurting the controller: a per-call timeout, an
// instruction budget, an allocation budget, bounded call and value stacks,
// capped string functions and a pattern matcher that can be interrupted.
//
// Unlike Karmada, which re-parses every script on every call, a VM compiles a
// script once into a function prototype, keeps it in an LRU cache keyed by the
// SHA-256 of its name and text, and runs it on states taken from a bounded
// pool. A state that raised an error or hit a limit is closed, never reused.
//
// Three more things Karmada does not do keep calls cheap without changing
// any result: objects become Lua tables one level at a time, when the
// script reaches them (lazy.go); tables known whole (statuses) are built in
// one go, pre-sized, with interned strings, through gopher-lua's public API
// only (tables.go); and the native pod-template computations of the kube
// module are remembered per template content (podmemo.go).
//
// Every call runs in a fresh global environment over read-only libraries,
// so that no script can change what a later call on the same pooled state
// sees (isolation.go); scripts are checked against size, nesting and
// constant limits before they are compiled (precheck.go).
//
// File map: vm.go (VM, calls, error bounds), operations.go (entry
// functions), precheck.go, compile.go (compiling, cache), sandbox.go,
// isolation.go, stdlib.go, stringlib.go, print.go and the pattern
// subpackage (the sandbox), kube.go, podmemo.go, requirements.go (the kube module and its
// results), tolua.go, lazy.go, jsonlua.go, tables.go, numbers.go (Go ->
// Lua), togo.go, repair.go, decode.go, jsonwriter.go (Lua -> Go), budget.go,
// guard.go, pool.go, options.go (limits and pooling).
package lua
