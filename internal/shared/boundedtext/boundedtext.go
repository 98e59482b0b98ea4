package boundedtext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultLimit is the length in bytes of text kept by String, Bytes and
// Error: the events.k8s.io note limit (1 KiB), room enough for a message
// naming the object, field or script line, and far below a condition
// message's 32 KiB.
const DefaultLimit = 1024

// The marker appended to truncated text is markerPrefix + N + markerSuffix,
// N the number of bytes dropped.
const (
	markerPrefix = "... [truncated "
	markerSuffix = " bytes]"
)

// String returns s when it is at most DefaultLimit bytes long, else its
// first bytes followed by the marker "... [truncated N bytes]", at most
// DefaultLimit bytes in all.
func String(s string) string { return Limit(s, DefaultLimit) }

// Bytes is String for a byte slice; only the kept prefix is copied.
func Bytes(b []byte) string {
	if len(b) <= DefaultLimit {
		return string(b)
	}
	keep := keptPrefix(len(b), DefaultLimit)
	for keep > 0 && !utf8.RuneStart(b[keep]) {
		keep--
	}
	return string(b[:keep]) + marker(len(b)-keep)
}

// Limit is String with an explicit limit in bytes. A limit shorter than the
// marker yields the marker alone, so truncation is always visible.
func Limit(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	keep := keptPrefix(len(s), limit)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + marker(len(s)-keep)
}

// keptPrefix is how many bytes of a text of total bytes fit in limit beside
// the marker. The dropped count has at most as many digits as total, so the
// marker is never longer than assumed here.
func keptPrefix(total, limit int) int {
	return max(limit-len(markerPrefix)-len(strconv.Itoa(total))-len(markerSuffix), 0)
}

func marker(dropped int) string {
	return markerPrefix + strconv.Itoa(dropped) + markerSuffix
}

// IsTruncated reports whether s ends with the marker of truncated text.
func IsTruncated(s string) bool {
	if !strings.HasSuffix(s, markerSuffix) {
		return false
	}
	i := strings.LastIndex(s, markerPrefix)
	if i < 0 {
		return false
	}
	_, err := strconv.Atoi(s[i+len(markerPrefix) : len(s)-len(markerSuffix)])
	return err == nil
}

// Error returns err when its message is at most DefaultLimit bytes long,
// else an error with the truncated message that still unwraps to err, so
// errors.Is and errors.As keep working. It returns nil for nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if len(msg) <= DefaultLimit {
		return err
	}
	return &truncatedError{msg: String(msg), err: err}
}

// truncatedError is an error whose own message was too long.
type truncatedError struct {
	msg string
	err error
}

func (e *truncatedError) Error() string { return e.msg }
func (e *truncatedError) Unwrap() error { return e.err }
