package nfsen

import (
	"os"
	"testing"

	"fincom/server/needs"
)

// TestMain reports the tests skipped for a missing outside tool.
func TestMain(m *testing.M) { os.Exit(needs.Run(m)) }
