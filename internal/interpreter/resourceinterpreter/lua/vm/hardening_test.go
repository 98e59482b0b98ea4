package vm

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
)

func TestTableConcatOfManyElements(t *testing.T) {
	vm := newVM(t, Options{})
	for _, n := range []int{2500, 10000} {
		got, err := eval(t, vm, `local t = {}
for i = 1, `+itoa(n)+` do t[i] = "x" end
local s = table.concat(t, ",")
return {n = #s}`)
		if err != nil {
			t.Errorf("%d elements: %v", n, err)
			continue
		}
		if want := `{"n":` + itoa(2*n-1) + `}`; got != want {
			t.Errorf("%d elements: got %s, want %s", n, got, want)
		}
	}
}

func TestHugeErrorIsTruncated(t *testing.T) {
	vm := newVM(t, Options{})
	_, err := eval(t, vm, `local s = "0123456789abcdef"
for i = 1, 20 do s = s .. s end
error(s)`)
	if err == nil {
		t.Fatal("no error")
	}
	if n := len(err.Error()); n > MaxErrorBytes+200 {
		t.Errorf("error of %d bytes", n)
	}
	if !strings.Contains(err.Error(), "truncated") || !strings.HasPrefix(err.Error(), `customization "my-ric" InterpretStatus: my-ric:4:`) {
		t.Errorf("error without position or marker: %.300s", err.Error())
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}

func TestPrintGoesToTheLogBounded(t *testing.T) {
	var buf syncBuffer
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&buf)))
	lctx := klog.NewContext(ctx, logger)
	vm := newVM(t, Options{})
	s := NewScript(ric, `function InterpretHealth(o)
  local s = "0123456789abcdef"
  for i = 1, 16 do s = s .. s end
  for i = 1, 1000 do print(s, i) end
  return true
end`)
	stdout := os.Stdout
	r, w, _ := os.Pipe()
	os.Stdout = w
	_, err := interpretHealth(vm, lctx, s, obj(t, `{"kind":"X"}`))
	os.Stdout = stdout
	w.Close()
	leaked, _ := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(leaked) != 0 {
		t.Errorf("%d bytes printed to stdout", len(leaked))
	}
	out := buf.String()
	lines := strings.Count(out, "lua script print")
	if lines == 0 || lines > maxPrintLines {
		t.Errorf("%d log lines, want 1..%d", lines, maxPrintLines)
	}
	if len(out) > lines*(maxPrintBytes+400) || !strings.Contains(out, `customization="my-ric"`) || !strings.Contains(out, "truncated") {
		t.Errorf("log of %d bytes for %d lines: %.400s", len(out), lines, out)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
