package replicas

import (
	"math"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// Condition reasons and messages of the normalisation (Kubernetes' HPA
// wording, which Karmada keeps).
const (
	ReasonReadyForNewScale    = "ReadyForNewScale"
	ReasonScaleUpStabilized   = "ScaleUpStabilized"
	ReasonScaleDownStabilized = "ScaleDownStabilized"
	ReasonTooManyReplicas     = "TooManyReplicas"
	ReasonTooFewReplicas      = "TooFewReplicas"
	ReasonScaleUpLimit        = "ScaleUpLimit"
	ReasonScaleDownLimit      = "ScaleDownLimit"
	ReasonDesiredWithinRange  = "DesiredWithinRange"

	msgReadyForNewScale    = "recommended size matches current size"
	msgScaleUpStabilized   = "recent recommendations were lower than current one, applying the lowest recent recommendation"
	msgScaleDownStabilized = "recent recommendations were higher than current one, applying the highest recent recommendation"
	msgTooMany             = "the desired replica count is more than the maximum replica count"
	msgTooFew              = "the desired replica count is less than the minimum replica count"
	msgScaleUpLimit        = "the desired replica count is increasing faster than the maximum scale rate"
	msgScaleDownLimit      = "the desired replica count is decreasing faster than the maximum scale rate"
	msgWithinRange         = "the desired count is within the acceptable range"
)

// Outcome is a normalised proposal with the reasons of the AbleToScale
// (stabilisation) and ScalingLimited (bounds and rates) conditions.
type Outcome struct {
	Replicas                            int32
	StabilizedReason, StabilizedMessage string
	LimitedReason, LimitedMessage       string
	Limited                             bool
}

type recommendation struct {
	replicas int32
	at       time.Time
}

type scaleEvent struct {
	change   int32
	at       time.Time
	outdated bool
}

// history is what the controller remembers of one FederatedHPA.
type history struct {
	recommendations []recommendation
	up, down        []scaleEvent
}

// Normalizer keeps, per FederatedHPA, the recent recommendations and scale
// events, in memory as Karmada does (a restart starts them again).
type Normalizer struct {
	// DownscaleStabilization is
	// --horizontal-pod-autoscaler-downscale-stabilization (5m), also the
	// default scale-down window of a behavior.
	DownscaleStabilization time.Duration

	mu    sync.Mutex
	byKey map[string]*history
}

func (n *Normalizer) history(key string) *history {
	if n.byKey == nil {
		n.byKey = map[string]*history{}
	}
	h := n.byKey[key]
	if h == nil {
		h = &history{}
		n.byKey[key] = h
	}
	return h
}

// Forget drops what is remembered of key (the FederatedHPA is gone).
func (n *Normalizer) Forget(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.byKey, key)
}

// Seed records current as a recommendation when none is remembered, so
// that no scale-down happens in the first stabilisation window.
func (n *Normalizer) Seed(key string, current int32, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.history(key)
	if len(h.recommendations) == 0 {
		h.recommendations = append(h.recommendations, recommendation{current, now})
	}
}

// Bounds are the FederatedHPA's limits.
type Bounds struct {
	Min, Max int32
}

// Normalize turns proposal into the replicas to set, with behavior (nil:
// Kubernetes' default rules) applied.
func (n *Normalizer) Normalize(key string, current, proposal int32, b Bounds, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, now time.Time) Outcome {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.history(key)
	if behavior == nil {
		return n.normalizeDefault(h, current, proposal, b, now)
	}
	return n.normalizeWithBehavior(h, current, proposal, b, n.withDefaults(behavior), now)
}

func (n *Normalizer) normalizeDefault(h *history, current, proposal int32, b Bounds, now time.Time) Outcome {
	stabilized := proposal
	old := -1
	cutoff := now.Add(-n.DownscaleStabilization)
	for i, r := range h.recommendations {
		if r.at.Before(cutoff) {
			old = i
		} else if r.replicas > stabilized {
			stabilized = r.replicas
		}
	}
	h.store(old, recommendation{proposal, now})
	out := Outcome{StabilizedReason: ReasonReadyForNewScale, StabilizedMessage: msgReadyForNewScale}
	if stabilized != proposal {
		out.StabilizedReason, out.StabilizedMessage = ReasonScaleDownStabilized, msgScaleDownStabilized
	}
	upLimit := max(2*current, 4)
	maxAllowed, reason, msg := b.Max, ReasonTooManyReplicas, msgTooMany
	if b.Max > upLimit {
		maxAllowed, reason, msg = upLimit, ReasonScaleUpLimit, msgScaleUpLimit
	}
	switch {
	case stabilized < b.Min:
		out.Replicas, out.LimitedReason, out.LimitedMessage = b.Min, ReasonTooFewReplicas, msgTooFew
	case stabilized > maxAllowed:
		out.Replicas, out.LimitedReason, out.LimitedMessage = maxAllowed, reason, msg
	default:
		out.Replicas, out.LimitedReason, out.LimitedMessage = stabilized, ReasonDesiredWithinRange, msgWithinRange
	}
	out.Limited = out.Replicas != stabilized
	return out
}

func (h *history) store(old int, r recommendation) {
	if old >= 0 {
		h.recommendations[old] = r
		return
	}
	h.recommendations = append(h.recommendations, r)
}

// withDefaults fills what Karmada's webhook would (and the scale-down
// window from the flag), so that a behavior written without the webhook
// never leaves a rule nil.
func (n *Normalizer) withDefaults(in *autoscalingv2.HorizontalPodAutoscalerBehavior) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	b := in.DeepCopy()
	maxPolicy := autoscalingv2.MaxChangePolicySelect
	if b.ScaleUp == nil {
		b.ScaleUp = &autoscalingv2.HPAScalingRules{}
	}
	if b.ScaleUp.StabilizationWindowSeconds == nil {
		b.ScaleUp.StabilizationWindowSeconds = new(int32)
	}
	if b.ScaleUp.SelectPolicy == nil {
		b.ScaleUp.SelectPolicy = &maxPolicy
	}
	if len(b.ScaleUp.Policies) == 0 {
		b.ScaleUp.Policies = []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		}
	}
	if b.ScaleDown == nil {
		b.ScaleDown = &autoscalingv2.HPAScalingRules{}
	}
	if b.ScaleDown.StabilizationWindowSeconds == nil {
		w := int32(n.DownscaleStabilization / time.Second)
		b.ScaleDown.StabilizationWindowSeconds = &w
	}
	if b.ScaleDown.SelectPolicy == nil {
		b.ScaleDown.SelectPolicy = &maxPolicy
	}
	if len(b.ScaleDown.Policies) == 0 {
		b.ScaleDown.Policies = []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}
	}
	return b
}

func (n *Normalizer) normalizeWithBehavior(h *history, current, proposal int32, b Bounds, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, now time.Time) Outcome {
	upWindow := time.Duration(*behavior.ScaleUp.StabilizationWindowSeconds) * time.Second
	downWindow := time.Duration(*behavior.ScaleDown.StabilizationWindowSeconds) * time.Second
	up, down := proposal, proposal
	old := -1
	obsolete := now.Add(-max(upWindow, downWindow))
	for i, r := range h.recommendations {
		if r.at.After(now.Add(-upWindow)) {
			up = min(up, r.replicas)
		}
		if r.at.After(now.Add(-downWindow)) {
			down = max(down, r.replicas)
		}
		if r.at.Before(obsolete) {
			old = i
		}
	}
	stabilized := min(max(current, up), down)
	h.store(old, recommendation{proposal, now})
	out := Outcome{StabilizedReason: ReasonReadyForNewScale, StabilizedMessage: msgReadyForNewScale}
	if stabilized != proposal {
		if proposal >= current {
			out.StabilizedReason, out.StabilizedMessage = ReasonScaleUpStabilized, msgScaleUpStabilized
		} else {
			out.StabilizedReason, out.StabilizedMessage = ReasonScaleDownStabilized, msgScaleDownStabilized
		}
	}
	out.Replicas, out.LimitedReason, out.LimitedMessage = stabilized, ReasonDesiredWithinRange, msgWithinRange
	switch {
	case stabilized > current:
		limit := max(scaleUpLimit(current, h.up, h.down, behavior.ScaleUp, now), current)
		maxAllowed, reason, msg := b.Max, ReasonTooManyReplicas, msgTooMany
		if maxAllowed > limit {
			maxAllowed, reason, msg = limit, ReasonScaleUpLimit, msgScaleUpLimit
		}
		if stabilized > maxAllowed {
			out.Replicas, out.LimitedReason, out.LimitedMessage = maxAllowed, reason, msg
		}
	case stabilized < current:
		limit := min(scaleDownLimit(current, h.up, h.down, behavior.ScaleDown, now), current)
		minAllowed, reason, msg := b.Min, ReasonTooFewReplicas, msgTooFew
		if minAllowed < limit {
			minAllowed, reason, msg = limit, ReasonScaleDownLimit, msgScaleDownLimit
		}
		if stabilized < minAllowed {
			out.Replicas, out.LimitedReason, out.LimitedMessage = minAllowed, reason, msg
		}
	}
	out.Limited = out.Replicas != stabilized
	return out
}

// changeInPeriod sums the scale events of the last period.
func changeInPeriod(periodSeconds int32, events []scaleEvent, now time.Time) int32 {
	cutoff := now.Add(-time.Duration(periodSeconds) * time.Second)
	var sum int32
	for _, e := range events {
		if e.at.After(cutoff) {
			sum += e.change
		}
	}
	return sum
}

// scaleUpLimit and scaleDownLimit are the bounds the scaling rules allow
// from current: each policy proposes a count from the replicas at the
// start of its period; selectPolicy Max takes the largest change (the
// highest count up, the lowest down), Min the smallest, Disabled none.
func scaleUpLimit(current int32, up, down []scaleEvent, rules *autoscalingv2.HPAScalingRules, now time.Time) int32 {
	return scaleLimit(current, up, down, rules, now, true)
}

func scaleDownLimit(current int32, up, down []scaleEvent, rules *autoscalingv2.HPAScalingRules, now time.Time) int32 {
	return scaleLimit(current, up, down, rules, now, false)
}

func scaleLimit(current int32, up, down []scaleEvent, rules *autoscalingv2.HPAScalingRules, now time.Time, scaleUp bool) int32 {
	if *rules.SelectPolicy == autoscalingv2.DisabledPolicySelect {
		return current
	}
	highest := (*rules.SelectPolicy == autoscalingv2.MinChangePolicySelect) != scaleUp
	result := int32(math.MaxInt32)
	if highest {
		result = math.MinInt32
	}
	for _, p := range rules.Policies {
		start := current - changeInPeriod(p.PeriodSeconds, up, now) + changeInPeriod(p.PeriodSeconds, down, now)
		var proposed int32
		switch {
		case p.Type == autoscalingv2.PodsScalingPolicy && scaleUp:
			proposed = start + p.Value
		case p.Type == autoscalingv2.PodsScalingPolicy:
			proposed = start - p.Value
		case scaleUp:
			proposed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		default:
			proposed = int32(float64(start) * (1 - float64(p.Value)/100))
		}
		if highest {
			result = max(result, proposed)
		} else {
			result = min(result, proposed)
		}
	}
	return result
}

// RecordScale remembers a rescale from previous to next for the rate
// limits of behavior (nothing without one).
func (n *Normalizer) RecordScale(key string, previous, next int32, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, now time.Time) {
	if behavior == nil || previous == next {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.history(key)
	behavior = n.withDefaults(behavior)
	if next > previous {
		h.up = addEvent(h.up, next-previous, longestPeriod(behavior.ScaleUp), now)
	} else {
		h.down = addEvent(h.down, previous-next, longestPeriod(behavior.ScaleDown), now)
	}
}

func longestPeriod(rules *autoscalingv2.HPAScalingRules) int32 {
	var longest int32
	for _, p := range rules.Policies {
		longest = max(longest, p.PeriodSeconds)
	}
	return longest
}

func addEvent(events []scaleEvent, change, longest int32, now time.Time) []scaleEvent {
	cutoff := now.Add(-time.Duration(longest) * time.Second)
	old := -1
	for i := range events {
		if events[i].at.Before(cutoff) {
			events[i].outdated = true
		}
		if events[i].outdated {
			old = i
		}
	}
	e := scaleEvent{change: change, at: now}
	if old >= 0 {
		events[old] = e
		return events
	}
	return append(events, e)
}
