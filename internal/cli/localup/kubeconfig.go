package localup

import (
	"fmt"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/propel-mc/propel/internal/cli/localenv"
)

// Karmada's e2e suite (test/e2e/suites/base) reads two kubeconfigs, as its
// hack/run-e2e.sh sets them up: $KUBECONFIG with the contexts
// karmada-apiserver (the control plane) and karmada-host (the cluster the
// components run in), and a members file with one context per member,
// named as the member.
const (
	// SuiteKubeconfig is the $KUBECONFIG of Karmada's suite.
	SuiteKubeconfig = "karmada.config"
	// MembersKubeconfig has one context per member.
	MembersKubeconfig = "members.config"
	// KarmadaAPIServerContext and KarmadaHostContext are the suite's
	// --karmada-context and --host-context defaults.
	KarmadaAPIServerContext = "karmada-apiserver"
	KarmadaHostContext      = "karmada-host"
)

// writeSuiteKubeconfigs writes SuiteKubeconfig and MembersKubeconfig into
// dir with admin credentials and returns their paths. Local-up has no host
// cluster (its processes run on this machine), so karmada-host is the
// control plane too: the suite only needs the context to exist, and the
// specs that look for component pods there cannot pass either way.
func writeSuiteKubeconfigs(dir string, controlPlane *localenv.APIServer, members []*localenv.APIServer) (string, string, error) {
	cfg := clientcmdapi.NewConfig()
	for _, ctx := range []string{KarmadaAPIServerContext, KarmadaHostContext} {
		addContext(cfg, ctx, controlPlane)
	}
	cfg.CurrentContext = KarmadaAPIServerContext
	suite := filepath.Join(dir, SuiteKubeconfig)
	if err := clientcmd.WriteToFile(*cfg, suite); err != nil {
		return "", "", fmt.Errorf("write %s: %w", suite, err)
	}
	cfg = clientcmdapi.NewConfig()
	for _, m := range members {
		addContext(cfg, m.Name, m)
	}
	if len(members) > 0 {
		cfg.CurrentContext = members[0].Name
	}
	membersPath := filepath.Join(dir, MembersKubeconfig)
	if err := clientcmd.WriteToFile(*cfg, membersPath); err != nil {
		return "", "", fmt.Errorf("write %s: %w", membersPath, err)
	}
	return suite, membersPath, nil
}

// addContext adds a context called name, with a cluster and a user of the
// same name, reaching s with its admin credentials.
func addContext(cfg *clientcmdapi.Config, name string, s *localenv.APIServer) {
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthorityData: s.CAPEM}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: s.Config.CertData, ClientKeyData: s.Config.KeyData}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
}
