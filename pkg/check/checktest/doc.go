// Package checktest holds what the unit tests of looks share (pkg/check's
// and make conform's): a fake cluster in a run's ctx, an API server that
// does not answer, and the judgment of one look against what it must say.
package checktest
