package lua

import (
	"context"
	"fmt"
)

// pool keeps at most size Lua states alive. get returns an idle state,
// creates one while fewer than size exist, or waits for one to come back.
type pool struct {
	create func() (*state, error)
	idle   chan *state
	slots  chan struct{}
}

func newPool(size int, create func() (*state, error)) *pool {
	return &pool{create: create, idle: make(chan *state, size), slots: make(chan struct{}, size)}
}

func (p *pool) get(ctx context.Context) (*state, error) {
	select {
	case s := <-p.idle:
		return s, nil
	default:
	}
	select {
	case s := <-p.idle:
		return s, nil
	case p.slots <- struct{}{}:
		s, err := p.create()
		if err != nil {
			<-p.slots
			return nil, err
		}
		return s, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for a free Lua state: %w", ctx.Err())
	}
}

// put returns a healthy state for reuse.
func (p *pool) put(s *state) { p.idle <- s }

// discard closes a state that must not be reused and frees its slot.
func (p *pool) discard(s *state) {
	s.close()
	<-p.slots
}

// drain closes the idle states.
func (p *pool) drain() {
	for {
		select {
		case s := <-p.idle:
			p.discard(s)
		default:
			return
		}
	}
}
