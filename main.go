// Command fincom is a self-hosted finance and sales back end: one binary,
// one SQLite file per domain. See README.md.
package main

import (
	_ "embed"
	"os"

	// The binary carries its own time zone data: Brazilian dates are shown
	// in America/Sao_Paulo even on machines without /usr/share/zoneinfo.
	_ "time/tzdata"

	"fincom/cmd"
)

//go:embed schema.sql
var schema string

func main() {
	os.Exit(cmd.Execute(schema))
}
