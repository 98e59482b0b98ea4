package recovery

import (
	"fmt"
	"runtime"

	"github.com/go-logr/logr"
	toolscache "k8s.io/client-go/tools/cache"
)

// maxStack bounds the stack trace logged with a recovered panic.
const maxStack = 8 << 10

// Run calls fn and turns a panic into an error log naming what (the
// handler) with the panic value and a bounded stack. It reports whether fn
// panicked, so a caller can retry the item another way.
func Run(logger logr.Logger, what string, fn func()) (panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			panicked = true
			buf := make([]byte, maxStack)
			buf = buf[:runtime.Stack(buf, false)]
			logger.Error(fmt.Errorf("panic: %v", r), "recovered from a panic in an event handler", "handler", what, "stack", string(buf))
		}
	}()
	fn()
	return false
}

// Handler wraps h so that each of its callbacks recovers from panics (see
// Run); onPanic, if set, gets the object of a callback that panicked.
func Handler(logger logr.Logger, what string, h toolscache.ResourceEventHandler, onPanic func(obj interface{})) toolscache.ResourceEventHandler {
	guard := func(obj interface{}, fn func()) {
		if Run(logger, what, fn) && onPanic != nil {
			Run(logger, what+" (panic fallback)", func() { onPanic(obj) })
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			guard(obj, func() { h.OnAdd(obj, false) })
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			guard(newObj, func() { h.OnUpdate(oldObj, newObj) })
		},
		DeleteFunc: func(obj interface{}) {
			guard(obj, func() { h.OnDelete(obj) })
		},
	}
}
