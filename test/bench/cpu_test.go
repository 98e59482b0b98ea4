package main

import (
	"os"
	"testing"
	"time"
)

func TestStatCPU(t *testing.T) {
	// A command name with a space and a ')' must not shift the fields.
	line := "4242 (kube apiserver) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 12 0 100 0 0"
	if got, want := statCPU(line), (1234+567)*time.Second/clockTicks; got != want {
		t.Fatalf("statCPU = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "1 (x) S 1", "1 (x) S 1 2 3 4 5 6 7 8 9 10 u s"} {
		if got := statCPU(bad); got != -1 {
			t.Errorf("statCPU(%q) = %v, want -1", bad, got)
		}
	}
	if processCPU(os.Getpid()) < 0 {
		t.Fatal("no CPU time for this process")
	}
}
