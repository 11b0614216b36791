// Package schedule shares a run's cells among the kind clusters that run
// them at once: what each cell costs (from the reports' measured times), what
// a plan costs on n clusters, and the queue the clusters take cells from.
package schedule
