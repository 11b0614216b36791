// Package sourcestest writes the source archives unit tests hand to the
// finders: a .tar.gz laid out as `git archive --prefix` writes one.
package sourcestest
