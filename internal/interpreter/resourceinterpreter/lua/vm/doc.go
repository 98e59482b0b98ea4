// Package vm owns the Lua virtual machine behind customization scripts:
// the sandboxed gopher-lua state (the libraries Karmada opens, the unsafe
// globals it overrides, a string library with capped arguments and an
// interruptible pattern matcher), the isolation of calls from one another
// on pooled states, and the limits that keep a bad script from hurting the
// controller: a per-call timeout, an instruction budget, an allocation
// budget, bounded call and value stacks, and checks of a script's text
// before it is compiled.
//
// Unlike Karmada, which re-parses every script on every call, a VM
// compiles a script once into a function prototype, keeps it in an LRU
// cache keyed by the SHA-256 of its name and text, and runs it on states
// taken from a bounded pool. A state that raised an error or hit a limit is
// closed, never reused. Every call runs in a fresh global environment over
// read-only libraries, so that no script can change what a later call on
// the same pooled state sees.
//
// The VM knows nothing of objects: a user (the lua package) gives New a
// function that prepares each new state (modules, conversion state) and
// describes each call (arguments, results) with a Call.
//
// File map: vm.go (VM, Run, errors), compile.go (scripts, compiling,
// cache), precheck.go, sandbox.go, isolation.go, shadow.go, stdlib.go,
// stringlib.go, print.go (the sandbox), budget.go, guard.go, footprint.go,
// pool.go, options.go (limits and pooling).
package vm
