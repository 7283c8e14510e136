package xsd

import (
	"os"
	"testing"
)

func TestLoadFiscalSchemas(t *testing.T) {
	fsys := os.DirFS("../schemas")
	for _, name := range []string{"nfe-4.00/procNFe_v4.00.xsd", "nfe-4.00/nfe_v4.00.xsd", "nfse-nacional-1.00/NFSe_v1.00.xsd", "nfse-nacional-1.00/DPS_v1.00.xsd"} {
		s, err := Load(fsys, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.elements) == 0 {
			t.Fatalf("%s: no elements", name)
		}
	}
}
