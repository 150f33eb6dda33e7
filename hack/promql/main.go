// promql-check: Prometheus's own PromQL parser (github.com/prometheus/prometheus/promql/parser,
// pinned in go.mod) for the chart's tests. Reads a JSON array of expressions on stdin and writes
// a JSON array of the same length: for each, the parse error ("" when it parses) and the metric
// names its vector and matrix selectors select, sorted. Exits 0 whenever it could read its input.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// The options of a Prometheus server started without feature flags: experimental functions and
// unquoted UTF-8 names are refused, as such a server would refuse them.
var promql = parser.NewParser(parser.Options{})

type result struct {
	Error   string   `json:"error"`
	Metrics []string `json:"metrics"`
}

func check(expr string) result {
	parsed, err := promql.ParseExpr(expr)
	if err != nil {
		return result{Error: err.Error(), Metrics: []string{}}
	}
	names := map[string]bool{}
	parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
		if selector, ok := node.(*parser.VectorSelector); ok {
			for _, matcher := range selector.LabelMatchers {
				if matcher.Name == labels.MetricName && matcher.Type == labels.MatchEqual {
					names[matcher.Value] = true
				}
			}
		}
		return nil
	})
	metrics := []string{}
	for name := range names {
		metrics = append(metrics, name)
	}
	sort.Strings(metrics)
	return result{Error: "", Metrics: metrics}
}

func main() {
	var exprs []string
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		fmt.Fprintf(os.Stderr, "promql-check: stdin must be a JSON array of strings: %v\n", err)
		os.Exit(2)
	}
	results := make([]result, len(exprs))
	for i, expr := range exprs {
		results[i] = check(expr)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fmt.Fprintf(os.Stderr, "promql-check: %v\n", err)
		os.Exit(1)
	}
}
