// Package shell runs external commands (docker, kind, go, the image recipes).
// A failure carries the command as one pasteable line and the tail of its output.
package shell
