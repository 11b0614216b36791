// Package matrix turns a user's selection (scenarios, variants, ArgoCD tags)
// into the cells to run, and looks up each cell's expected outcome. The data
// lives in suites/matrix.yaml: which cells exist and what is expected where.
package matrix
