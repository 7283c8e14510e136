//go:build tools

// Package pocketbase pins PocketBase's example server (examples/base),
// which pocketbase.sh builds from this module.
package pocketbase

import _ "github.com/pocketbase/pocketbase/examples/base"
