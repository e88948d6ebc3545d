// monitorcheck validates the monitoring files offline, with the libraries Prometheus and
// the Prometheus Operator themselves use:
//
//   - a Prometheus rule file: model/rulefmt, what `promtool check rules` runs (strict
//     YAML, PromQL of every expression, alert templates, label names, durations);
//
//   - a Grafana dashboard: JSON, unique panel ids, and the PromQL of every target and
//     query variable (Grafana's $variables replaced by sample values first); every
//     selector of its panels scoped to the release its $namespace and $release pick;
//
//   - rendered Kubernetes manifests: every ServiceMonitor and PrometheusRule decoded
//     strictly into the operator's monitoring.coreos.com/v1 types (an unknown or
//     misspelt field fails, as a kind without a schema would in kubernetes-validate),
//     and each PrometheusRule's groups through rulefmt too;
//
//   - with -namespace (the one the manifests were rendered for): every selector of every
//     rendered PrometheusRule is scoped to its release. The release's targets are read
//     from the same rendering: each Service labelled gfts.io/metrics=true is a scrape job
//     (the ServiceMonitor's job is the Service's name), each StatefulSet and each of its
//     claims is what kube-state-metrics and the kubelet label their series with. A
//     selector must match some of those (on namespace, job, statefulset and
//     persistentvolumeclaim) and none of the same targets in another namespace or of
//     another release there (the name prefix, the ServiceMonitor's name, replaced by
//     another and by a longer one: release "gfts" against "gfts-b").
//
//     monitorcheck -rules FILE[,FILE] -dashboard FILE [-namespace NS] [RENDERED.yaml ...]
//
// Exit status 1 on any problem; one line per problem, then a summary.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

var (
	problems []string
	promql   = parser.NewParser(parser.Options{})
	logger   = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func fail(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

func checkRules(where string, content []byte) int {
	groups, errs := rulefmt.Parse(content, false, model.UTF8Validation, promql, logger)
	for _, err := range errs {
		fail("%s: %v", where, err)
	}
	if groups == nil {
		return 0
	}
	rules := 0
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			rules++
			if r.Alert != "" {
				if r.Labels["severity"] == "" {
					fail("%s: alert %s has no severity label", where, r.Alert)
				}
				if r.Annotations["summary"] == "" || r.Annotations["runbook"] == "" {
					fail("%s: alert %s needs summary and runbook annotations", where, r.Alert)
				}
			}
		}
	}
	if rules == 0 {
		fail("%s: no rules", where)
	}
	return rules
}

// Grafana's variables, replaced by values of the same kind before parsing.
var grafanaVariable = regexp.MustCompile(`\$\{?(\w+)(?::\w+)?\}?`)

func sampleValue(name string) string {
	switch name {
	case "__rate_interval", "__interval", "__range", "__range_s":
		return "5m"
	case "namespace":
		return dashboardNamespace
	case "release":
		return dashboardRelease
	}
	return "sample"
}

// The dashboard picks its release with the variables $namespace and $release (a release's
// jobs are "<release>-<service>"). Filled with these, each of its selectors must match the
// release's services and none of the same services in another namespace, of another
// release, or of a release whose name begins with this one's.
const (
	dashboardNamespace = "sample-namespace"
	dashboardRelease   = "sample"
)

var dashboardServices = []string{"gateway", "friendship", "tasks", "notifications"}

func dashboardTargets() (own, foreign []map[string]string) {
	for _, service := range dashboardServices {
		own = append(own, map[string]string{"namespace": dashboardNamespace, "job": dashboardRelease + "-" + service})
		foreign = append(foreign,
			map[string]string{"namespace": dashboardNamespace + "-elsewhere", "job": dashboardRelease + "-" + service},
			map[string]string{"namespace": dashboardNamespace, "job": "other-" + service},
			map[string]string{"namespace": dashboardNamespace, "job": dashboardRelease + "-b-" + service})
	}
	return own, foreign
}

type panel struct {
	ID      int     `json:"id"`
	Type    string  `json:"type"`
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

func checkDashboard(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
		return 0
	}
	var dashboard struct {
		UID        string  `json:"uid"`
		Title      string  `json:"title"`
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	// Grafana's model has many more fields than these: the decoding checks the JSON and
	// the structure the checks below need.
	if err := json.Unmarshal(raw, &dashboard); err != nil {
		fail("%s: not valid JSON: %v", path, err)
		return 0
	}
	if dashboard.UID == "" || dashboard.Title == "" {
		fail("%s: needs uid and title", path)
	}
	expressions := 0
	ids := map[int]bool{}
	own, foreign := dashboardTargets()
	parse := func(where, expr string, scoped bool) {
		expressions++
		filled := grafanaVariable.ReplaceAllStringFunc(expr, func(v string) string {
			return sampleValue(grafanaVariable.FindStringSubmatch(v)[1])
		})
		parsed, err := promql.ParseExpr(filled)
		if err != nil {
			fail("%s: %s: %v\n      %s", path, where, err, expr)
			return
		}
		if scoped {
			checkSelectors(path, where, parsed, own, foreign)
		}
	}
	var walk func([]panel)
	walk = func(panels []panel) {
		for _, p := range panels {
			if ids[p.ID] {
				fail("%s: panel id %d used twice", path, p.ID)
			}
			ids[p.ID] = true
			if p.Type != "row" && len(p.Targets) == 0 {
				fail("%s: panel %q has no query", path, p.Title)
			}
			for _, t := range p.Targets {
				parse(fmt.Sprintf("panel %q", p.Title), t.Expr, true)
			}
			walk(p.Panels)
		}
	}
	walk(dashboard.Panels)
	for _, v := range dashboard.Templating.List {
		if v.Type != "query" {
			continue
		}
		query := fmt.Sprint(v.Query)
		if m, ok := v.Query.(map[string]any); ok {
			query = fmt.Sprint(m["query"])
		}
		// label_values(<selector>, <label>): the selector is PromQL.
		if inner := regexp.MustCompile(`^label_values\((.*),\s*\w+\)$`).FindStringSubmatch(query); inner != nil {
			// the two that choose the scope list what there is to choose from
			parse("variable "+v.Name, inner[1], v.Name != "namespace" && v.Name != "release")
		} else {
			fail("%s: variable %s: only label_values(...) queries are expected, got %q", path, v.Name, query)
		}
	}
	return expressions
}

// The labels a release's series are told apart by: the target's namespace and scrape job
// (the services), the StatefulSet (kube-state-metrics), the claim (the kubelet's volume stats).
var scopeLabels = []string{"namespace", "job", "statefulset", "persistentvolumeclaim"}

// A string field of a decoded object: field(node, "metadata", "name").
func field(node map[string]any, path ...string) string {
	var value any = node
	for _, key := range path {
		m, _ := value.(map[string]any)
		value = m[key]
	}
	s, _ := value.(string)
	return s
}

// releaseTargets: the label sets of the rendered release's own series (see the file comment),
// and those of the same targets elsewhere: another namespace, another release, and a release
// whose name begins with this one's.
func releaseTargets(docs []map[string]any, namespace string) (own, foreign []map[string]string) {
	fullname := ""
	for _, node := range docs {
		name := field(node, "metadata", "name")
		switch field(node, "kind") {
		case "ServiceMonitor":
			fullname = name
		case "Service":
			if field(node, "metadata", "labels", "gfts.io/metrics") == "true" {
				own = append(own, map[string]string{"namespace": namespace, "job": name})
			}
		case "StatefulSet":
			own = append(own, map[string]string{"namespace": namespace, "statefulset": name})
			spec, _ := node["spec"].(map[string]any)
			claims, _ := spec["volumeClaimTemplates"].([]any)
			for _, claim := range claims {
				if c, ok := claim.(map[string]any); ok {
					own = append(own, map[string]string{"namespace": namespace, "persistentvolumeclaim": field(c, "metadata", "name") + "-" + name + "-0"})
				}
			}
		}
	}
	for _, target := range own {
		elsewhere := map[string]string{}
		for k, v := range target {
			elsewhere[k] = v
		}
		elsewhere["namespace"] = namespace + "-elsewhere"
		foreign = append(foreign, elsewhere)
		if fullname == "" {
			continue
		}
		for _, other := range []string{"other", fullname + "-b"} {
			renamed := map[string]string{}
			for k, v := range target {
				if k != "namespace" {
					v = strings.Replace(v, fullname, other, 1)
				}
				renamed[k] = v
			}
			foreign = append(foreign, renamed)
		}
	}
	return own, foreign
}

// matches: whether a selector's matchers on the scope labels accept a target's label set
// (a label the target lacks is "", as in Prometheus).
func matches(matchers []*labels.Matcher, target map[string]string) bool {
	for _, m := range matchers {
		if slices.Contains(scopeLabels, m.Name) && !m.Matches(target[m.Name]) {
			return false
		}
	}
	return true
}

// checkScope: every selector of every rule matches some of the release's own targets and
// none of the foreign ones.
func checkScope(where string, content []byte, own, foreign []map[string]string) int {
	groups, errs := rulefmt.Parse(content, false, model.UTF8Validation, promql, logger)
	if len(errs) > 0 || groups == nil {
		return 0 // reported by checkRules
	}
	if len(own) == 0 {
		fail("%s: -namespace given, but the rendering has no scrape target (Service labelled gfts.io/metrics=true) or StatefulSet", where)
		return 0
	}
	selectors := 0
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			expr, err := promql.ParseExpr(r.Expr)
			if err != nil {
				continue // reported by checkRules
			}
			selectors += checkSelectors(where, r.Alert+r.Record, expr, own, foreign)
		}
	}
	return selectors
}

// checkSelectors: every selector of one expression matches some of the release's own
// targets and none of the foreign ones; the number of selectors.
func checkSelectors(where, name string, expr parser.Expr, own, foreign []map[string]string) int {
	selectors := 0
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		selectors++
		if !slices.ContainsFunc(own, func(t map[string]string) bool { return matches(vs.LabelMatchers, t) }) {
			fail("%s: %s: %s matches none of the release's targets %v", where, name, vs, own)
		}
		for _, t := range foreign {
			if matches(vs.LabelMatchers, t) {
				fail("%s: %s: %s is not scoped to the release: it also matches %v", where, name, vs, t)
				break
			}
		}
		return nil
	})
	return selectors
}

func checkManifests(path, namespace string) (int, int) {
	raw, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
		return 0, 0
	}
	objects, rules := 0, 0
	var docs []map[string]any
	decoder := yamlv3.NewDecoder(bytes.NewReader(raw))
	for {
		var node map[string]any
		if err := decoder.Decode(&node); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			fail("%s: %v", path, err)
			break
		}
		if node != nil {
			docs = append(docs, node)
		}
	}
	own, foreign := releaseTargets(docs, namespace)
	for _, node := range docs {
		kind, _ := node["kind"].(string)
		if kind != "ServiceMonitor" && kind != "PrometheusRule" {
			continue
		}
		objects++
		doc, _ := json.Marshal(node)
		name := fmt.Sprint(node["metadata"].(map[string]any)["name"])
		where := fmt.Sprintf("%s: %s/%s", path, kind, name)
		if node["apiVersion"] != "monitoring.coreos.com/v1" {
			fail("%s: apiVersion must be monitoring.coreos.com/v1", where)
		}
		switch kind {
		case "ServiceMonitor":
			var sm monitoringv1.ServiceMonitor
			if err := yaml.UnmarshalStrict(doc, &sm); err != nil {
				fail("%s: %v", where, err)
			} else if len(sm.Spec.Endpoints) == 0 {
				fail("%s: no endpoints", where)
			}
		case "PrometheusRule":
			var pr monitoringv1.PrometheusRule
			if err := yaml.UnmarshalStrict(doc, &pr); err != nil {
				fail("%s: %v", where, err)
				continue
			}
			spec, _ := yaml.Marshal(node["spec"])
			rules += checkRules(where, spec)
			if namespace != "" {
				scoped[path] += checkScope(where, spec, own, foreign)
			}
		}
	}
	return objects, rules
}

// Selectors checked for their release scope, per rendered file.
var scoped = map[string]int{}

func main() {
	rules := flag.String("rules", "", "Prometheus rule files, comma-separated (Helm templates are read as they are)")
	dashboard := flag.String("dashboard", "", "Grafana dashboard JSON")
	namespace := flag.String("namespace", "", "the namespace the manifests were rendered for: check that every PrometheusRule selector is scoped to the release")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: monitorcheck -rules FILE[,FILE] -dashboard FILE [-namespace NS] [RENDERED.yaml ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	var summary []string
	if *rules != "" {
		n := 0
		for _, file := range strings.Split(*rules, ",") {
			raw, err := os.ReadFile(file)
			if err != nil {
				fail("%v", err)
				continue
			}
			n += checkRules(file, raw)
		}
		summary = append(summary, fmt.Sprintf("%d rules", n))
	}
	if *dashboard != "" {
		summary = append(summary, fmt.Sprintf("%d dashboard queries", checkDashboard(*dashboard)))
	}
	for _, path := range flag.Args() {
		objects, n := checkManifests(path, *namespace)
		line := fmt.Sprintf("%s: %d operator objects (%d rules", path, objects, n)
		if scoped[path] > 0 {
			line += fmt.Sprintf(", %d selectors scoped to the release", scoped[path])
		}
		summary = append(summary, line+")")
	}
	for _, p := range problems {
		fmt.Println("FAIL", p)
	}
	if len(problems) > 0 {
		fmt.Printf("%d problems\n", len(problems))
		os.Exit(1)
	}
	fmt.Println("valid:", strings.Join(summary, "; "))
}
