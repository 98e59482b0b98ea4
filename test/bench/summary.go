package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/propel-mc/propel/test/harness"
)

// summaryPrefix starts the machine-readable line, so that runs at several
// sizes can be collected with grep and fitted.
const summaryPrefix = "BENCH-SUMMARY "

// summary is one run in one line: its dimensions, its stage times
// (seconds from the first Deployment created), latencies and costs.
type summary struct {
	Members   int    `json:"members"`
	Nodes     int    `json:"nodes"` // per member
	Pods      int    `json:"pods"`  // per member
	N         int    `json:"n"`
	Policies  int    `json:"policies"`
	Placement string `json:"placement"`
	Works     int    `json:"works"`
	LowMemory bool   `json:"lowMemoryMembers"`

	LoadSeconds       float64 `json:"loadSeconds"` // nodes and pods, before Propel starts
	BindingsSeconds   float64 `json:"bindingsSeconds"`
	WorksSeconds      float64 `json:"worksSeconds"`
	AppliedSeconds    float64 `json:"appliedSeconds"`
	AggregatedSeconds float64 `json:"aggregatedSeconds"`

	ScheduleMillis   distribution   `json:"scheduleMillis"`  // binding seen to scheduled
	DecisionMillis   decisionMillis `json:"decisionMillis"`  // the scheduler's own time per binding, queue wait apart
	EndToEndSeconds  distribution   `json:"endToEndSeconds"` // Deployment created to all its Works applied
	WritesPerDeploy  float64        `json:"writesPerDeployment"`
	CMPeakMiB        float64        `json:"cmPeakMiB"`
	CMCPUSeconds     float64        `json:"cmCPUSeconds"`
	PropelCPUSeconds float64        `json:"propelCPUSeconds"` // controller manager (+ scheduler) + control-plane API server + etcd
	// The scheduler's own, when it runs apart (-scheduler-bin).
	SchedulerPeakMiB    float64 `json:"schedulerPeakMiB,omitempty"`
	SchedulerCPUSeconds float64 `json:"schedulerCPUSeconds,omitempty"`

	MemberAPIServerMiB    float64 `json:"memberAPIServerMiB"`    // mean RSS at the end
	MemberAPIServerMaxMiB float64 `json:"memberAPIServerMaxMiB"` // largest peak RSS
	IdleSeconds           float64 `json:"idleSeconds,omitempty"`
	IdleMemberReqPerMin   float64 `json:"idleMemberRequestsPerMinute,omitempty"`
	IdleControlReqPerMin  float64 `json:"idleControlPlaneRequestsPerMinute,omitempty"`
	IdleCMCPUPercent      float64 `json:"idleCMCPUPercent,omitempty"`

	LoadAverage string `json:"loadAverage"` // /proc/loadavg's 1, 5 and 15 minute figures at the end
}

// summary gathers the run's figures once everything is measured.
func (r result) summary(env *harness.Env, before, after map[string]float64) summary {
	since := func(t time.Time) float64 { return t.Sub(r.start).Seconds() }
	st := r.stages
	s := summary{
		Members: r.cfg.members, Nodes: r.cfg.nodes, Pods: r.cfg.pods, N: r.cfg.n, Policies: r.cfg.policies,
		Placement: r.cfg.placement, Works: st.works.count, LowMemory: r.cfg.lowMemoryMembers,
		LoadSeconds:     r.load.Seconds(),
		BindingsSeconds: since(st.bound.last), WorksSeconds: since(st.works.last),
		AppliedSeconds: since(st.applied.last), AggregatedSeconds: since(st.aggregated.last),
		ScheduleMillis: r.schedule, DecisionMillis: r.decisions, EndToEndSeconds: r.endToEnd,
		WritesPerDeploy:  r.writesPerDeployment(before, after),
		CMPeakMiB:        r.peakMiB,
		CMCPUSeconds:     r.cpu.spent[controllerManagerName].Seconds(),
		PropelCPUSeconds: r.cpu.propelTotal().Seconds(),
		SchedulerPeakMiB: r.schedulerPeakMiB, SchedulerCPUSeconds: r.cpu.spent[schedulerName].Seconds(),
		LoadAverage: loadAverage(),
	}
	for _, m := range env.Members {
		s.MemberAPIServerMiB += currentRSS(m.Process.Pid()) / float64(len(env.Members))
		s.MemberAPIServerMaxMiB = max(s.MemberAPIServerMaxMiB, peakRSS(m.Process.Pid()))
	}
	if c := r.idle; c != nil {
		s.IdleSeconds = c.duration.Seconds()
		s.IdleMemberReqPerMin, s.IdleControlReqPerMin = c.memberPerMinute, c.controlPlanePerMinute
		s.IdleCMCPUPercent = 100 * c.cmCPU.Seconds() / c.duration.Seconds()
	}
	return s
}

func (s summary) print() {
	line, err := json.Marshal(s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: summary:", err)
		return
	}
	fmt.Printf("\n%s%s\n", summaryPrefix, line)
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	return strings.Join(f[:min(3, len(f))], " ")
}
