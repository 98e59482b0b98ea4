package managerbase

import (
	"runtime/debug"
	"testing"
)

func TestApplyGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100)) // restore

	t.Setenv("GOGC", "")
	debug.SetGCPercent(100)
	if got, from := ApplyGCPercent(); got != defaultGCPercent || from != "default" {
		t.Errorf("GOGC unset: %d from %q, want %d from the default", got, from, defaultGCPercent)
	}
	if now := debug.SetGCPercent(100); now != defaultGCPercent {
		t.Errorf("GOGC unset: the runtime's target is %d, want %d", now, defaultGCPercent)
	}

	// GOGC is read by the runtime at start; here it stands for a user's
	// choice already applied.
	t.Setenv("GOGC", "200")
	debug.SetGCPercent(200)
	if got, from := ApplyGCPercent(); got != 200 || from != "GOGC" {
		t.Errorf("GOGC=200: %d from %q, want 200 from GOGC", got, from)
	}
	if now := debug.SetGCPercent(100); now != 200 {
		t.Errorf("GOGC=200: the runtime's target became %d", now)
	}
}
