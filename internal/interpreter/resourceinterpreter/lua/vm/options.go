package vm

import "time"

// Defaults of Options.
const (
	DefaultPoolSize        = 10
	DefaultTimeout         = time.Second
	DefaultMaxSteps        = 10_000_000
	DefaultMaxAllocBytes   = 128 << 20
	DefaultCacheSize       = 512
	DefaultCallStackSize   = 256
	DefaultRegistrySize    = 1024
	DefaultRegistryMaxSize = 5120
)

// Options tunes a VM. Zero values take the defaults above.
type Options struct {
	// PoolSize bounds the number of Lua states alive at once; a call waits
	// for a free state when all are busy.
	PoolSize int
	// Timeout bounds the wall-clock time of one call (the caller's context
	// may shorten it).
	Timeout time.Duration
	// MaxSteps bounds the number of VM instructions of one call (string
	// library loops count as instructions too). Negative disables it.
	MaxSteps int64
	// MaxAllocBytes bounds the memory one call's Lua state holds (strings,
	// tables, closures reachable from its frames). The call measures its
	// own state whenever the process has allocated this much since its last
	// measure, so other goroutines' allocations never count against it.
	// Negative disables it.
	MaxAllocBytes int64
	// CacheSize is the number of compiled scripts kept.
	CacheSize int
	// DisableCache compiles the script on every call, as Karmada does; only
	// useful to measure what the cache saves.
	DisableCache bool
	// CallStackSize bounds the Lua call depth.
	CallStackSize int
	// RegistrySize is the initial size of a state's value stack;
	// RegistryMaxSize bounds its growth (Karmada's fixed size is 5120).
	RegistrySize    int
	RegistryMaxSize int
}

func (o Options) withDefaults() Options {
	if o.PoolSize <= 0 {
		o.PoolSize = DefaultPoolSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxSteps == 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.MaxAllocBytes == 0 {
		o.MaxAllocBytes = DefaultMaxAllocBytes
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.CallStackSize <= 0 {
		o.CallStackSize = DefaultCallStackSize
	}
	if o.RegistrySize <= 0 {
		o.RegistrySize = DefaultRegistrySize
	}
	if o.RegistryMaxSize <= 0 {
		o.RegistryMaxSize = DefaultRegistryMaxSize
	}
	if o.RegistryMaxSize < o.RegistrySize {
		o.RegistryMaxSize = o.RegistrySize
	}
	return o
}
