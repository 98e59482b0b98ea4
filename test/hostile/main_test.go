package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
)

// systemCA is the only system root of this test process: TestMain points
// SSL_CERT_FILE at it before anything loads the system roots.
var systemCA *webhooktest.CA

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ca, err := webhooktest.NewCA()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "hostile-roots")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "roots.pem")
	if err := os.WriteFile(file, ca.PEM, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("SSL_CERT_FILE", file)
	os.Setenv("SSL_CERT_DIR", dir)
	systemCA = ca
	return m.Run()
}
