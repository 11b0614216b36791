//go:build tools

// Package tools pins the registry command of distribution/distribution.
package tools

import _ "github.com/distribution/distribution/v3/cmd/registry"
