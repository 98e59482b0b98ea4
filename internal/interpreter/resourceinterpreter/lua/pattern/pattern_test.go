package pattern

import (
	"errors"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/pm"
)

// reference runs gopher-lua's matcher (what Karmada runs) and returns its
// match in this package's terms; ok is false when it reports an error.
func reference(src, pat string, init int) (m *Match, ok bool) {
	defer func() {
		if recover() != nil {
			m, ok = nil, false
		}
	}()
	mds, err := pm.Find(pat, []byte(src), init, 1)
	if err != nil {
		return nil, false
	}
	if len(mds) == 0 {
		return nil, true
	}
	md := mds[0]
	out := &Match{Start: md.Capture(0), End: md.Capture(1)}
	for i := 2; i < md.CaptureLength(); i += 2 {
		if md.IsPosCapture(i) {
			out.Captures = append(out.Captures, Capture{Start: md.Capture(i) - 1, Len: Position})
		} else {
			out.Captures = append(out.Captures, Capture{Start: md.Capture(i), Len: md.Capture(i+1) - md.Capture(i)})
		}
	}
	return out, true
}

// comparable reports whether both matchers are meant to agree on pat:
// gopher-lua has no %f frontier (it reads %f as the letter f, as does
// this package) and patterns that hit this package's complexity bound are
// left out.
func comparable(pat string) bool { return !strings.Contains(pat, "%f") }

func same(a, b *Match) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	if a.Start != b.Start || a.End != b.End || len(a.Captures) != len(b.Captures) {
		return false
	}
	for i := range a.Captures {
		ca, cb := a.Captures[i], b.Captures[i]
		if ca.Len == Unfinished || cb.Len == Unfinished {
			continue // an error when pushed, in both
		}
		if ca != cb {
			return false
		}
	}
	return true
}

var seeds = []struct {
	src, pat string
	init     int
}{
	{"hello world", "o w", 0}, {"hello world", "l+", 0}, {"key=value", "(%w+)=(%w+)", 0},
	{"key = value", "^(%w+)%s*=%s*(%w+)$", 0}, {"  trim  ", "^%s*(.-)%s*$", 0},
	{"2024-01-02", "(%d+)-(%d+)-(%d+)", 0}, {"hello", "()ll()", 0}, {"f(a(b)c)d", "%b()", 0},
	{"abcabc", "(abc)%1", 0}, {"x = [[y]]", "%[%[(.*)%]%]", 0}, {"a]b", "[]]", 0}, {"a-b", "[a%-]+", 0},
	{"hello123", "[^%d]+", 0}, {"0x1F", "^0x(%x+)$", 0}, {"abc", "a?b?c?d?", 0}, {"aaab", "a-b", 0},
	{"v1.2.3", "v(%d+)%.(%d+)%.(%d+)", 0}, {"abc", ".-$", 0}, {"$x", "$x", 0}, {"a\x00b", "%z", 0},
	{"UPPER lower", "%u+", 0}, {"p!u?n", "%p", 0}, {"\t x", "%S", 0}, {"abc", "b", 10}, {"abc", "", 2},
	{"resourcetemplate.karmada.io/generation", "^[%w%.]+/", 0}, {"aaa", "a*$", 1},
	// Sets as gopher-lua reads them (ranges join any two items, match only
	// between two characters; "--" collapses; a trailing '-' is literal).
	{"x0-", "[%0-0]", 0}, {"-b", "[a--b]", 0}, {"z-", "[%a-z]", 0}, {"d-", "[a-c-e]", 0},
	{"b-", "[a-]", 0}, {"-x", "[-x]+", 0}, {"q-", "[^a-c-]", 0},
}

func TestFindMatchesGopherLua(t *testing.T) {
	for _, c := range seeds {
		got, err := Find(c.src, c.pat, c.init, nil)
		if err != nil {
			t.Errorf("Find(%q, %q, %d): %v", c.src, c.pat, c.init, err)
			continue
		}
		want, ok := reference(c.src, c.pat, c.init)
		if !ok {
			t.Fatalf("gopher-lua rejects %q", c.pat)
		}
		if !same(got, want) {
			t.Errorf("Find(%q, %q, %d) = %+v, gopher-lua %+v", c.src, c.pat, c.init, got, want)
		}
	}
}

func TestFindErrors(t *testing.T) {
	for pat, msg := range map[string]string{
		"%":                       "malformed pattern (ends with '%')",
		"[a":                      "malformed pattern (missing ']')",
		"a)":                      "invalid pattern capture",
		"%1":                      "invalid capture index",
		"%b":                      "unbalanced pattern",
		strings.Repeat("(", 33):   "too many captures",
		strings.Repeat("a?", 300): "pattern too complex",
	} {
		_, err := Find(strings.Repeat("a", 300), pat, 0, nil)
		var pe *Error
		if !errors.As(err, &pe) || pe.Message != msg {
			t.Errorf("%q: got %v, want %q", pat, err, msg)
		}
	}
	stop := errors.New("stop")
	_, err := Find(strings.Repeat("a", 5000), "(.-)(.-)(.-)b", 0, func() error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("tick error not returned: %v", err)
	}
}

// FuzzFindMatchesGopherLua holds the matcher to gopher-lua's on every
// input both accept.
func FuzzFindMatchesGopherLua(f *testing.F) {
	for _, c := range seeds {
		f.Add(c.src, c.pat, c.init)
	}
	f.Fuzz(func(t *testing.T, src, pat string, init int) {
		if len(src) > 256 || len(pat) > 64 || init < 0 || init > len(src)+1 || !comparable(pat) {
			return
		}
		got, err := Find(src, pat, init, nil)
		if err != nil {
			return // malformed or too complex: an error, never a crash
		}
		want, ok := reference(src, pat, init)
		if !ok {
			return
		}
		if !same(got, want) {
			t.Errorf("Find(%q, %q, %d) = %+v, gopher-lua %+v", src, pat, init, got, want)
		}
	})
}
