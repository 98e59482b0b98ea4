// Package writememo is a controller's memory of its own writes until its
// cache shows them ("read your writes" over an informer cache). After a
// write, the controller remembers the resourceVersions the write
// superseded, the version it produced and, optionally, the written object.
// Reads and events then ask the memo:
//
//   - Resolve: the cache still holds a superseded version, so use the
//     remembered object instead of re-acting on stale data;
//   - Observe: the cache delivered an object; was it the echo of my own
//     write? Any version the memo did not supersede ends the entry, so
//     nothing is kept once the cache has caught up.
//
// Every lookup is counted in propel_write_memo_lookups_total{memo,result}
// (hit: the memo answered; miss: the cache was current or the key unknown)
// on controller-runtime's metrics registry; propel_write_memo_entries
// gauges the entries held.
package writememo
