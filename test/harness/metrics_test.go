package harness

import "testing"

func TestSamples(t *testing.T) {
	text := `# HELP rest_client_requests_total Number of HTTP requests.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 42
rest_client_requests_total{code="201",host="127.0.0.1:6443",method="POST"} 7
rest_client_requests_total_other{method="POST"} 100
apiserver_request_total{resource="a,b",verb="PATCH",note="say \"hi\" {x}"} 3
leader_election_master_status{name="karmada-controller-manager"} 1
up 1
`
	rest := Samples(text, "rest_client_requests_total")
	if len(rest) != 2 {
		t.Fatalf("got %d rest_client_requests_total samples, want 2: %v", len(rest), rest)
	}
	if got := Sum(rest, func(l map[string]string) bool { return l["method"] == "POST" }); got != 7 {
		t.Errorf("POST sum %v, want 7", got)
	}
	if got := Sum(rest, nil); got != 49 {
		t.Errorf("sum %v, want 49", got)
	}
	api := Samples(text, "apiserver_request_total")
	if len(api) != 1 || api[0].Labels["resource"] != "a,b" || api[0].Labels["verb"] != "PATCH" ||
		api[0].Labels["note"] != `say "hi" {x}` || api[0].Value != 3 {
		t.Errorf("apiserver_request_total: %+v", api)
	}
	if up := Samples(text, "up"); len(up) != 1 || up[0].Value != 1 || len(up[0].Labels) != 0 {
		t.Errorf("up: %+v", up)
	}
}

func TestFamilies(t *testing.T) {
	text := `# HELP a_seconds help
# TYPE a_seconds histogram
a_seconds_bucket{result="ok",le="0.1"} 1
a_seconds_bucket{result="ok",le="+Inf"} 1
a_seconds_sum{result="ok"} 0.05
a_seconds_count{result="ok"} 1
# TYPE b_total counter
b_total 3
# TYPE c gauge
c{z="1",a="x, y"} 1
c{a="2"} 1
# TYPE d gauge
`
	f := Families(text)
	if got := f["a_seconds"]; got == nil || got.Type != "histogram" || len(got.LabelSets) != 1 || !got.LabelSets["result"] {
		t.Errorf("a_seconds = %+v, want a histogram with the one label set result", got)
	}
	if got := f["b_total"]; got == nil || got.Type != "counter" || len(got.LabelSets) != 1 || !got.LabelSets[""] {
		t.Errorf("b_total = %+v, want a counter without labels", got)
	}
	if got := f["c"]; got == nil || got.Type != "gauge" || !got.LabelSets["a,z"] || !got.LabelSets["a"] {
		t.Errorf("c = %+v, want a gauge with the label sets a,z and a", got)
	}
	if got := f["d"]; got == nil || len(got.LabelSets) != 0 {
		t.Errorf("d = %+v, want a family without series", got)
	}
}
