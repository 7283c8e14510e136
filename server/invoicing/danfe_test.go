package invoicing

import (
	"testing"

	"fincom/server/fiscal"
)

// TestDANFEPartyAsPeopleReadIt: a DANFE writes a party's CNPJ or CPF, CEP
// and phone as Brazilians write them.
func TestDANFEPartyAsPeopleReadIt(t *testing.T) {
	got := danfeParty(fiscal.Party{Register: "11222333000181", Zip: "01310100", Phone: "1130000000"})
	if got.Register != "11.222.333/0001-81" || got.Zip != "01310-100" || got.Phone != "(11) 3000-0000" {
		t.Fatalf("%+v", got)
	}
	if got := danfeParty(fiscal.Party{Register: "52998224725", Phone: "11988887777"}); got.Register != "529.982.247-25" || got.Phone != "(11) 98888-7777" {
		t.Fatalf("%+v", got)
	}
}
