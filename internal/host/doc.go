// Package host prepares the machine the suite runs on: a Docker engine, the
// tools offline builds need, and the runc wrapper for hosts whose capability
// bounding set lacks CAP_SYS_RESOURCE (see shared/HERMETIC.md).
//
// Gather reads the facts, Decide turns them into a Plan (pure, unit-tested),
// and Apply carries the plan out.
package host
