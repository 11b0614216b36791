//go:build tools

// Package tools pins the coredns command.
package tools

import _ "github.com/coredns/coredns"
