package replay

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Stream is an Observer that writes the text report object by object as
// the run goes (instead of after it) and, on a terminal, a progress line
// ("replaying 37/120 apps/v1 Deployment default/web") that each report
// line and the next progress line replace. JSON output is one document,
// so it is written whole after the run: give it a nil report writer.
type Stream struct {
	report   io.Writer
	progress io.Writer
	shown    bool
	err      error
}

// NewStream writes the text report to report (nil: none) and progress to
// progress when progressOn, which the caller sets when progress is a
// terminal: piped or redirected output gets no progress lines, so logs and
// scripts see the report only.
func NewStream(report, progress io.Writer, progressOn bool) *Stream {
	s := &Stream{report: report}
	if progressOn {
		s.progress = progress
	}
	return s
}

// Replaying shows the progress line of the i-th of n templates.
func (s *Stream) Replaying(i, n int, tmpl *unstructured.Unstructured) {
	if s.progress == nil {
		return
	}
	// \r and erase-to-end-of-line rewrite the line in place.
	s.write(s.progress, fmt.Sprintf("\rreplaying %d/%d %s %s %s\x1b[K", i, n, tmpl.GetAPIVersion(), tmpl.GetKind(), key(tmpl)))
	s.shown = true
}

// Object writes obj's lines of the text report.
func (s *Stream) Object(obj ObjectReport) {
	if s.report == nil {
		return
	}
	s.clear()
	var b strings.Builder
	writeObject(&b, obj)
	s.write(s.report, b.String())
}

// Finish clears the progress line and, with a report writer, writes the
// skipped operations and the summary; it returns the first write error.
func (s *Stream) Finish(r *Report) error {
	s.clear()
	if s.report != nil {
		var b strings.Builder
		writeEnd(&b, r)
		s.write(s.report, b.String())
	}
	return s.err
}

func (s *Stream) clear() {
	if s.shown {
		s.write(s.progress, "\r\x1b[K")
		s.shown = false
	}
}

func (s *Stream) write(w io.Writer, text string) {
	if s.err != nil {
		return
	}
	_, s.err = io.WriteString(w, text)
}
