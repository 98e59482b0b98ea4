package managerbase

import (
	"time"

	"github.com/spf13/pflag"
)

// LeaderElection are the --leader-elect* flags.
type LeaderElection struct {
	LeaderElect                  bool
	LeaderElectResourceName      string
	LeaderElectResourceNamespace string
	LeaseDuration                time.Duration
	RenewDeadline                time.Duration
	RetryPeriod                  time.Duration
}

// NewLeaderElection returns Karmada's defaults with the Lease name of the
// component (its Karmada counterpart's, so that the two never lead at
// once).
func NewLeaderElection(lease string) LeaderElection {
	return LeaderElection{
		LeaderElect:                  true,
		LeaderElectResourceName:      lease,
		LeaderElectResourceNamespace: "karmada-system",
		LeaseDuration:                15 * time.Second,
		RenewDeadline:                10 * time.Second,
		RetryPeriod:                  2 * time.Second,
	}
}

// AddFlags registers the leader-election flags on fs; leaderWork says
// what only the leader does ("writes", "schedules") and counterpart names
// the Karmada component whose Lease is the default.
func (l *LeaderElection) AddFlags(fs *pflag.FlagSet, leaderWork, counterpart string) {
	fs.BoolVar(&l.LeaderElect, "leader-elect", l.LeaderElect, "Run leader election so that only one replica "+leaderWork+".")
	fs.StringVar(&l.LeaderElectResourceName, "leader-elect-resource-name", l.LeaderElectResourceName, "Lease name; "+counterpart+"'s by default, so Propel and "+counterpart+" never lead at once.")
	fs.StringVar(&l.LeaderElectResourceNamespace, "leader-elect-resource-namespace", l.LeaderElectResourceNamespace, "Lease namespace.")
	fs.DurationVar(&l.LeaseDuration, "leader-elect-lease-duration", l.LeaseDuration, "Leader election lease duration.")
	fs.DurationVar(&l.RenewDeadline, "leader-elect-renew-deadline", l.RenewDeadline, "Leader election renew deadline.")
	fs.DurationVar(&l.RetryPeriod, "leader-elect-retry-period", l.RetryPeriod, "Leader election retry period.")
}
