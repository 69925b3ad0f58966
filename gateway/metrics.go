package gateway

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolerr/toolerr/core"
)

// metrics are the gateway's Prometheus series. Every label value is a
// fixed set (route names, status codes, registry codes, repair kinds), so
// no request can create unbounded series.
type metrics struct {
	requests      *prometheus.CounterVec   // route, status
	duration      *prometheus.HistogramVec // route
	inFlight      prometheus.Gauge
	repairs       *prometheus.CounterVec // route, kind
	flags         *prometheus.CounterVec // route
	findings      *prometheus.CounterVec // route, kind
	opFailures    *prometheus.CounterVec // route
	upstreamErrs  *prometheus.CounterVec // route, code, stream
	upstreamCalls *prometheus.CounterVec // route
}

// The metric names, as /metrics lists them.
const (
	MetricRequests         = "toolerr_gateway_requests_total"
	MetricDuration         = "toolerr_gateway_request_duration_seconds"
	MetricInFlight         = "toolerr_gateway_in_flight_requests"
	MetricRepairs          = "toolerr_gateway_repairs_total"
	MetricFlagsRestored    = "toolerr_gateway_flags_restored_total"
	MetricFindings         = "toolerr_gateway_findings_total"
	MetricRequestOpFailure = "toolerr_gateway_request_op_failures_total"
	MetricUpstreamErrors   = "toolerr_gateway_upstream_errors_total"
	MetricUpstreamRequests = "toolerr_gateway_upstream_requests_total"
)

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRequests,
			Help: "Requests answered, by route and the HTTP status the client got."}, []string{"route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricDuration,
			Help:    "Time from the request to the end of its response (a stream's last byte), by route.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}}, []string{"route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricInFlight, Help: "Requests being served."}),
		repairs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRepairs,
			Help: "What the request op changed in request bodies, by route and kind (synthesized, dropped_orphans, dropped_duplicates, moved, merged, filled, renamed, split, named, rewritten_ids)."}, []string{"route", "kind"}),
		flags: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricFlagsRestored,
			Help: "Results whose envelope travelled without the format's failure flag and were given it, by route."}, []string{"route"}),
		findings: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricFindings,
			Help: "What check still found in bodies sent, which no rule repairs, by route and finding kind."}, []string{"route", "kind"}),
		opFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRequestOpFailure,
			Help: "Bodies the request op could not read (not JSON, a list of the wrong shape), forwarded as they came, by route."}, []string{"route"}),
		upstreamErrs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricUpstreamErrors,
			Help: "Upstream failures by route, envelope code and whether they came inside a stream (stream=true) or as the response (false)."}, []string{"route", "code", "stream"}),
		upstreamCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricUpstreamRequests,
			Help: "Requests sent upstream, by route: one per client request (the gateway never retries)."}, []string{"route"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.inFlight, m.repairs, m.flags, m.findings, m.opFailures, m.upstreamErrs, m.upstreamCalls} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// prepared records what the request op changed in one body.
func (m *metrics) prepared(rt route, p core.PreparedRequest) {
	for _, kv := range [...]struct {
		kind string
		n    int
	}{
		{"synthesized", p.Changes.Synthesized}, {"dropped_orphans", p.Changes.DroppedOrphans},
		{"dropped_duplicates", p.Changes.DroppedDuplicates}, {"moved", p.Changes.Moved}, {"merged", p.Changes.Merged},
		{"filled", p.Changes.Filled}, {"renamed", p.Changes.Renamed}, {"split", p.Changes.Split}, {"named", len(p.Named)}, {"rewritten_ids", p.Rewritten},
	} {
		if kv.n > 0 {
			m.repairs.WithLabelValues(rt.Name, kv.kind).Add(float64(kv.n))
		}
	}
	if n := len(p.FlagsRestored); n > 0 {
		m.flags.WithLabelValues(rt.Name).Add(float64(n))
	}
	for _, f := range p.Findings {
		m.findings.WithLabelValues(rt.Name, f.Kind).Inc()
	}
}

// upstreamError counts one upstream failure.
func (m *metrics) upstreamError(rt route, code core.Code, stream bool) {
	m.upstreamErrs.WithLabelValues(rt.Name, string(code), strconv.FormatBool(stream)).Inc()
}
