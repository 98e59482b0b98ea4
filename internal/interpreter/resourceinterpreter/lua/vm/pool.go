package vm

import (
	"context"
	"fmt"

	"github.com/propel-mc/propel/internal/shared/metrics"
)

// pool keeps at most size Lua states alive. get returns an idle state,
// creates one while fewer than size exist, or waits for one to come back.
// Takes and returns are counted in Karmada's pool metrics (pool luavm).
type pool[T interface{ close() }] struct {
	create func() (T, error)
	idle   chan T
	slots  chan struct{}
}

func newPool[T interface{ close() }](size int, create func() (T, error)) *pool[T] {
	return &pool[T]{create: create, idle: make(chan T, size), slots: make(chan struct{}, size)}
}

func (p *pool[T]) get(ctx context.Context) (T, error) {
	select {
	case s := <-p.idle:
		metrics.PoolGet(metrics.LuaVMPool, metrics.FromPool)
		return s, nil
	default:
	}
	select {
	case s := <-p.idle:
		metrics.PoolGet(metrics.LuaVMPool, metrics.FromPool)
		return s, nil
	case p.slots <- struct{}{}:
		s, err := p.create()
		if err != nil {
			<-p.slots
			return s, err
		}
		metrics.PoolGet(metrics.LuaVMPool, metrics.FromNew)
		return s, nil
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("waiting for a free Lua state: %w", ctx.Err())
	}
}

// put returns a healthy state for reuse.
func (p *pool[T]) put(s T) {
	p.idle <- s
	metrics.PoolPut(metrics.LuaVMPool, metrics.ToPool)
}

// discard closes a state that must not be reused and frees its slot.
func (p *pool[T]) discard(s T) {
	s.close()
	<-p.slots
	metrics.PoolPut(metrics.LuaVMPool, metrics.ToDestroyed)
}

// drain closes the idle states.
func (p *pool[T]) drain() {
	for {
		select {
		case s := <-p.idle:
			p.discard(s)
		default:
			return
		}
	}
}
