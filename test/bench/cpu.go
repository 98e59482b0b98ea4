package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/test/harness"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// processCPU is the CPU time (user + system) of pid so far, from
// /proc/<pid>/stat; -1 when the process is gone.
func processCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	return statCPU(string(data))
}

// processesCPU is the CPU time of procs so far, summed.
func processesCPU(procs []*localenv.Process) time.Duration {
	var sum time.Duration
	for _, p := range procs {
		sum += max(processCPU(p.Pid()), 0)
	}
	return sum
}

// statCPU is utime + stime of a /proc/<pid>/stat line; -1 when malformed.
func statCPU(s string) time.Duration {
	// The command name (field 2) is in parentheses and may hold spaces
	// and parentheses: fields are counted from the last ')'.
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return -1
	}
	// fields[0] is field 3 (state): utime is field 14, stime field 15.
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// cpuMeter accumulates the CPU time each process of the environment spends
// between start and stop. The controller manager may be restarted in
// between (-binding-stage): its instances are summed, each read just
// before it stops.
type cpuMeter struct {
	procs map[string]*localenv.Process
	order []string
	start map[string]time.Duration
	spent map[string]time.Duration
}

// newCPUMeter lists the environment's processes: etcd (shared by every API
// server), the control plane's kube-apiserver and controllers, and each
// member's.
func newCPUMeter(env *harness.Env) *cpuMeter {
	m := &cpuMeter{procs: map[string]*localenv.Process{}, start: map[string]time.Duration{}, spent: map[string]time.Duration{}}
	m.add("etcd", env.Etcd.Process)
	m.add("control-plane kube-apiserver", env.ControlPlane.Process)
	m.add("control-plane kube-controller-manager", env.ControlPlaneControllerManager)
	for _, mem := range env.Members {
		m.add(mem.Options.Name+" kube-apiserver", mem.Process)
		m.add(mem.Options.Name+" kube-controller-manager", mem.ControllerManager)
		m.add(mem.Options.Name+" kube-scheduler", mem.Scheduler)
		m.add(mem.Options.Name+" kwok", mem.Kwok)
	}
	return m
}

const (
	controllerManagerName = "propel-controller-manager"
	// schedulerName is the scheduler's process when it runs apart
	// (-scheduler-bin).
	schedulerName = "scheduler"
)

func (m *cpuMeter) add(name string, p *localenv.Process) {
	if p == nil {
		return
	}
	if _, ok := m.procs[name]; !ok {
		m.order = append(m.order, name)
	}
	m.procs[name] = p
}

// begin records every process's CPU time so far.
func (m *cpuMeter) begin() {
	for name, p := range m.procs {
		m.start[name] = processCPU(p.Pid())
	}
}

// controllerManager starts measuring a (new) controller manager instance.
func (m *cpuMeter) controllerManager(p *localenv.Process) {
	m.add(controllerManagerName, p)
	m.start[controllerManagerName] = processCPU(p.Pid())
}

// end adds every process's CPU time since begin (or since its instance
// started being measured) to what was spent; call it before stopping a
// controller manager instance, and once at the end.
func (m *cpuMeter) end() {
	for name, p := range m.procs {
		if now := processCPU(p.Pid()); now >= 0 && m.start[name] >= 0 {
			m.spent[name] += now - m.start[name]
			m.start[name] = now
		}
	}
}

// propelTotal is the CPU the budget counts: the controller manager (and
// the scheduler when it runs apart), the control plane's API server and
// etcd.
func (m *cpuMeter) propelTotal() time.Duration {
	return m.spent[controllerManagerName] + m.spent[schedulerName] + m.spent["control-plane kube-apiserver"] + m.spent["etcd"]
}
