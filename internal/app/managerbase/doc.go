// Package managerbase is the process setup every Propel binary shares:
// the connection to an API server (--kubeconfig, --master, --kube-api-qps,
// --kube-api-burst), leader election (--leader-elect*), the metrics,
// health-probe and pprof endpoints, and the controller-runtime manager
// built from them. propel-controller-manager and propel-scheduler build
// their manager here; propel-scheduler-estimator, which serves gRPC
// without a manager, shares the flags. Each binary keeps Karmada's
// defaults for its own component (Lease name, probe port, QPS).
package managerbase
