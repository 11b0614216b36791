// Package route is the route table of make upgrade-check: a query over the
// matrix (Of reads, from suites/matrix.yaml's expectations and nothing typed
// in, every behaviour change the suite measured on the path from FROM to TO,
// and what it measured there without a change) and its renderings
// (Route.Markdown for route.md, Route.Notes for the report's notes).
package route
