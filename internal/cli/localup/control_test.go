package localup

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemberAPIServerStaleSocket: a socket file left behind by a local-up
// that is gone refuses connections; the error must say that no local-up
// listens there rather than pass the dial error on bare.
func TestMemberAPIServerStaleSocket(t *testing.T) {
	dir := t.TempDir()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, controlSocket), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()

	err = memberAPIServer(context.Background(), dir, "member1", "stop")
	if err == nil || !strings.Contains(err.Error(), "no local-up control socket") {
		t.Fatalf("error = %v, want one naming the missing local-up control socket", err)
	}
}
