// Package customization owns the Lua customization layer of the resource
// interpreter: the configuration built from ResourceInterpreterCustomization
// objects (indexed by exact target GVK and merged by Karmada's rules), its
// atomic publication, its feeding from an informer or from a static list,
// the validation of scripts on load (Events and logs for scripts that do
// not compile), and the dispatch of each operation to the Lua VM of
// internal/interpreter/resourceinterpreter/lua. The same type serves the user's
// customizations ("customization") and Propel's embedded ones ("builtin"),
// and runs single operations for the CLI.
package customization
