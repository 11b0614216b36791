// Package appcelltest holds what the unit tests of the harness share
// (pkg/appcell's and make conform's): a user's chart written to disk.
package appcelltest
