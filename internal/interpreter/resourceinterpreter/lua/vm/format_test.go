package vm

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	glua "github.com/yuin/gopher-lua"
)

// formatFuzzArgs are the arguments the format fuzz target formats: strings
// that quote and hex-encode long, numbers at the extremes, and values that
// are not scalars.
func formatFuzzArgs(a, b string) []any {
	return []any{glua.LString(a), glua.LNumber(-1e308), glua.LString(b), glua.LNumber(0.5), glua.LBool(true),
		glua.LNil, &glua.LTable{}, &glua.LFunction{}}
}

// FuzzFormatSize checks that the format scanner reads formats as fmt does:
// whatever it accepts, fmt.Sprintf prints within the bound it returned.
func FuzzFormatSize(f *testing.F) {
	for _, s := range []string{
		"%s", "%99s|%.99f", "%[2]*[1]d", "%[3].[1]5x", "%#v %+q % #x", "%!", "%", "%%%", "%[", "%[1]", "%-099.99e",
		"%[1]s%[1]s%[1]s", "%d %d %d %d %d %d %d %d %d", "%.*[2]d", "%[0]s", "%[9]s%s", "%#q%#v", "%c%U%#U%b%o%O",
		"x%9999999s", "%100s", "%[xxxxxxxxxxxxxxx", "%T %p %8.3T", "%v %s %q %x %X", "%\xff%\u00e9",
	} {
		f.Add(s, "\x00\xff\u00e9", "`x`")
	}
	f.Fuzz(func(t *testing.T, format, a, b string) {
		args := formatFuzzArgs(a, b)
		size, err := formatSize(format, args)
		if err != nil {
			var fe *formatError
			if !errors.As(err, &fe) || fe.Arg < 1 || fe.Arg > len(args)+1 {
				t.Fatalf("%q: error %v", format, err)
			}
			return
		}
		if out := fmt.Sprintf(format, args...); int64(len(out)) > size {
			t.Fatalf("%q: fmt printed %d bytes, over the bound %d: %q", format, len(out), size, out)
		}
	})
}

func TestFormatSizeIsLinear(t *testing.T) {
	// fmt looks for the "]" of an index up to the end of the format.
	if _, err := formatSize(strings.Repeat("%[", 500_000), nil); err == nil || !strings.Contains(err.Error(), "not closed within 8 bytes") {
		t.Errorf("got %v", err)
	}
	// A short unclosed index at the end is fmt's %!(BADINDEX).
	if _, err := formatSize("%[12", formatFuzzArgs("", "")); err != nil {
		t.Error(err)
	}
}
