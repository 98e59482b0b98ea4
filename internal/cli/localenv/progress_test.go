package localenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeClock advances only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestProgressPrintsStartAndReadyWithElapsedTime(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var out bytes.Buffer
	p := NewProgress(&out, clock.now)
	p.Starting("etcd")
	clock.t = clock.t.Add(1234 * time.Millisecond)
	p.ReadyAt("etcd", "http://127.0.0.1:2379")
	p.Starting("member1-apiserver")
	since := p.Now()
	clock.t = clock.t.Add(61 * time.Second)
	p.Ready("member1-apiserver")
	p.Step("karmada: 3 CRDs installed", since)
	p.Ready("never-started")
	p.Starting("kwok")
	clock.t = clock.t.Add(800 * time.Millisecond)
	p.Ready("kwok")
	want := "  etcd starting\n" +
		"  etcd ready at http://127.0.0.1:2379 (1.2s)\n" +
		"  member1-apiserver starting\n" +
		"  member1-apiserver ready (1m1s)\n" +
		"  karmada: 3 CRDs installed (1m1s)\n" +
		"  never-started ready\n" +
		"  kwok starting\n" +
		"  kwok ready (0.8s)\n"
	if out.String() != want {
		t.Fatalf("progress output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestNilProgressPrintsNothing(t *testing.T) {
	var p *Progress
	p.Starting("etcd")
	p.Ready("etcd")
	p.ReadyAt("etcd", "x")
	p.Step("x", p.Now())
}

// fakeProcess runs script with sh, logging as processes of an environment do.
func fakeProcess(t *testing.T, script string) *Process {
	t.Helper()
	p, err := StartProcess("fake-apiserver", "/bin/sh", []string{"-c", script}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

func notYet(context.Context) error { return errors.New("connection refused") }

func TestWaitUntilNamesAnExitedProcessWithItsLogTail(t *testing.T) {
	p := fakeProcess(t, "for i in $(seq 1 30); do echo line $i; done; echo boom; exit 1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := p.WaitUntil(ctx, "/readyz", notYet)
	if err == nil {
		t.Fatal("a process that exits became ready")
	}
	if !errors.Is(err, ErrExitedEarly) {
		t.Errorf("error %v is not ErrExitedEarly", err)
	}
	msg := err.Error()
	for _, want := range []string{"fake-apiserver exited while waiting for /readyz", "exit status 1", "last lines of " + p.LogPath, "\n    boom", "\n    line 30"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "line 10\n") || strings.Count(msg, "\n    ") != tailLines {
		t.Errorf("error quotes %d log lines, want the last %d:\n%s", strings.Count(msg, "\n    "), tailLines, msg)
	}
}

func TestWaitUntilNamesAProcessThatNeverBecomesReady(t *testing.T) {
	p := fakeProcess(t, "echo waiting for etcd; exec sleep 60")
	// The log line is there before the wait starts timing out.
	if err := p.WaitUntil(context.Background(), "its log", func(context.Context) error {
		if lines, _ := TailFile(p.LogPath, 1, 1024); len(lines) == 1 && lines[0] == "waiting for etcd" {
			return nil
		}
		return errors.New("no log yet")
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := p.WaitUntil(ctx, "/readyz", notYet)
	if err == nil {
		t.Fatal("a process that never answers became ready")
	}
	msg := err.Error()
	for _, want := range []string{"fake-apiserver is not ready: timed out waiting for /readyz: connection refused", p.LogPath, "\n    waiting for etcd"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestTailFileReadsOnlyTheEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := TailFile(path, 3, 100)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(lines, ",") != "line 998,line 999,line 1000" {
		t.Fatalf("tail = %q", lines)
	}
	// A window smaller than the lines asked for drops the cut first line.
	lines, _ = TailFile(path, 50, 20)
	if len(lines) == 0 || lines[0] == "e 998" || strings.HasPrefix(lines[0], "ne") {
		t.Fatalf("tail kept a cut line: %q", lines)
	}
}
