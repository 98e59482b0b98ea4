// Package pattern owns Lua 5.1 pattern matching for the customization
// sandbox (string.find, string.match, string.gmatch). Unlike gopher-lua's
// matcher it calls back while it backtracks, so that a pathological
// pattern on a long string stops at the call's time or instruction limit
// instead of hanging the controller, and it bounds recursion and captures.
// It follows Lua 5.1 where gopher-lua (and thus Karmada) does; where they
// differ it follows gopher-lua: there is no %f frontier (%f is the letter
// f), and '^' anchors in gmatch. FuzzFindMatchesGopherLua holds it to
// gopher-lua's matcher.
package pattern
