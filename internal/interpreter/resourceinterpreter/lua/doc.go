// Package lua is the operations layer of ResourceInterpreterCustomization
// scripts: the calling contract of every entry function (GetReplicas,
// Retain, AggregateStatus...), what each pushes as arguments and how each
// result is checked and converted into Karmada's Go types. It wires the
// packages below it into one VM:
//
//   - vm: the sandboxed gopher-lua states, their pool, limits (time,
//     instructions, memory) and the compiled-script cache;
//   - convert: the one Go <-> Lua conversion (objects, statuses and JSON
//     into tables, tables back into objects, JSON and typed values);
//   - kube: the `kube` module scripts require;
//   - pattern: the interruptible Lua pattern matcher of the sandbox's
//     string library.
//
// File map: operations.go (VM, its options, entry functions).
package lua
