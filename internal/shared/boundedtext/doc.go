// Package boundedtext bounds text that comes from untrusted sources (a
// webhook's status.message, a Lua script's error, a member's response body)
// before it reaches a log line, an Event, a condition or a status field.
//
// A webhook or script can produce a message of many megabytes; copied whole
// into an error it is logged, stored in Events and written to the API
// server, where it costs memory everywhere and can exceed object size
// limits. Every such text goes through String (or Error for an error) at the
// boundary where it leaves the untrusted component. Truncated text ends with
// a marker saying how many bytes were dropped, so a reader knows it is not
// the whole message. Truncation never splits a UTF-8 sequence.
package boundedtext
