package boundedtext

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStringKeepsShortText(t *testing.T) {
	for _, s := range []string{"", "short", strings.Repeat("x", DefaultLimit)} {
		if got := String(s); got != s {
			t.Errorf("String(%d bytes) changed the text: %d bytes", len(s), len(got))
		}
		if IsTruncated(String(s)) {
			t.Errorf("String(%d bytes) reported truncated", len(s))
		}
	}
}

func TestStringTruncatesWithMarker(t *testing.T) {
	for _, n := range []int{DefaultLimit + 1, 5000, 20 << 20} {
		s := strings.Repeat("a", n)
		got := String(s)
		if len(got) > DefaultLimit {
			t.Errorf("String(%d bytes) = %d bytes, want <= %d", n, len(got), DefaultLimit)
		}
		if !IsTruncated(got) {
			t.Errorf("String(%d bytes) has no marker: %q", n, got[len(got)-40:])
		}
		kept := got[:strings.LastIndex(got, markerPrefix)]
		want := marker(n - len(kept))
		if !strings.HasSuffix(got, want) {
			t.Errorf("String(%d bytes) ends with %q, want %q", n, got[len(kept):], want)
		}
		if !strings.HasPrefix(s, kept) {
			t.Errorf("kept text is not a prefix of the input")
		}
	}
}

func TestBytesMatchesString(t *testing.T) {
	for _, n := range []int{0, 10, DefaultLimit, DefaultLimit + 1, 1 << 20} {
		s := strings.Repeat("é", n/2) // 2-byte runes: the cut must back up
		if got, want := Bytes([]byte(s)), String(s); got != want {
			t.Errorf("Bytes and String differ for %d bytes", len(s))
		}
	}
}

func TestTruncationKeepsValidUTF8(t *testing.T) {
	for pad := range 4 {
		s := strings.Repeat("x", pad) + strings.Repeat("世", 2000)
		got := String(s)
		if !utf8.ValidString(got) {
			t.Errorf("pad %d: truncated text is not valid UTF-8", pad)
		}
	}
}

func TestLimitShorterThanMarker(t *testing.T) {
	got := Limit(strings.Repeat("x", 100), 3)
	if got != marker(100) {
		t.Errorf("Limit(100 bytes, 3) = %q, want the marker alone", got)
	}
}

func TestErrorKeepsChain(t *testing.T) {
	if Error(nil) != nil {
		t.Fatal("Error(nil) != nil")
	}
	short := errors.New("short")
	if Error(short) != short {
		t.Error("a short error was wrapped")
	}
	long := &fs.PathError{Op: "open", Path: strings.Repeat("p", 1<<20), Err: fs.ErrNotExist}
	got := Error(long)
	if len(got.Error()) > DefaultLimit || !IsTruncated(got.Error()) {
		t.Errorf("Error(long) message is %d bytes, truncated=%v", len(got.Error()), IsTruncated(got.Error()))
	}
	if !errors.Is(got, fs.ErrNotExist) {
		t.Error("errors.Is lost the wrapped error")
	}
	var pe *fs.PathError
	if !errors.As(got, &pe) || pe != long {
		t.Error("errors.As lost the wrapped error")
	}
}

func TestIsTruncated(t *testing.T) {
	for s, want := range map[string]bool{
		"":                          false,
		"x bytes]":                  false,
		"x... [truncated a bytes]":  false,
		"x... [truncated 12 bytes]": true,
	} {
		if got := IsTruncated(s); got != want {
			t.Errorf("IsTruncated(%q) = %v, want %v", s, got, want)
		}
	}
}
