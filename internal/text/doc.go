// Package text is how the suite writes a value into a line it reports: a
// long one clipped, an empty one said to be none. One copy of each, for
// every package that writes report lines.
package text
