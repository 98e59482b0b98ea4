package placementbacklog

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

type fakeQueue struct{ n atomic.Int64 }

func (q *fakeQueue) Len() int { return int(q.n.Load()) }

func TestWaitReturnsAtOnceWithoutPlacementWork(t *testing.T) {
	b := New(time.Minute)
	b.Track(&fakeQueue{})
	if waited := b.Wait(context.Background()); waited != 0 {
		t.Errorf("waited %v with empty queues", waited)
	}
	var nilBacklog *Backlog
	if waited := nilBacklog.Wait(context.Background()); waited != 0 || nilBacklog.Pending() != 0 {
		t.Errorf("a nil backlog waited %v", waited)
	}
}

func TestWaitGivesWayUntilThePlacementQueuesDrain(t *testing.T) {
	b := New(time.Minute)
	detector, execution := &fakeQueue{}, &fakeQueue{}
	b.Track(detector)
	b.Track(execution)
	detector.n.Store(3)
	execution.n.Store(1)
	if got := b.Pending(); got != 4 {
		t.Fatalf("Pending() = %d, want 4", got)
	}
	done := make(chan time.Duration)
	go func() { done <- b.Wait(context.Background()) }()
	select {
	case <-done:
		t.Fatal("Wait returned while placement work was pending")
	case <-time.After(5 * pollInterval):
	}
	detector.n.Store(0)
	select {
	case <-done:
		t.Fatal("Wait returned while the execution queue still had an item")
	case <-time.After(5 * pollInterval):
	}
	execution.n.Store(0)
	select {
	case waited := <-done:
		if waited <= 0 {
			t.Errorf("waited %v, want the time it gave way", waited)
		}
	case <-time.After(time.Minute):
		t.Fatal("Wait did not return once the queues drained")
	}
}

func TestWaitIsBoundedSoStatusIsNeverStarved(t *testing.T) {
	b := New(3 * pollInterval)
	q := &fakeQueue{}
	q.n.Store(1)
	b.Track(q)
	done := make(chan struct{})
	go func() { b.Wait(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Wait did not end at its bound while placement work stayed pending")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b = New(time.Hour)
	b.Track(q)
	ended := make(chan struct{})
	go func() { b.Wait(ctx); close(ended) }()
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("Wait did not end with its context")
	}
}

func TestNewQueueTracksTheQueueItBuilds(t *testing.T) {
	if NewQueue[string](nil, true) != nil {
		t.Error("a nil backlog must leave controller-runtime's default queue")
	}
	for _, priority := range []bool{true, false} {
		b := New(time.Minute)
		q := NewQueue[string](b, priority)("test", workqueue.DefaultTypedControllerRateLimiter[string]())
		q.Add("a")
		q.Add("b")
		if got := b.Pending(); got != 2 {
			t.Errorf("priority queue %v: Pending() = %d after two adds, want 2", priority, got)
		}
		item, _ := q.Get()
		q.Done(item)
		if got := b.Pending(); got != 1 {
			t.Errorf("priority queue %v: Pending() = %d once a worker took one, want 1", priority, got)
		}
		q.ShutDown()
	}
}
