package brdoc

import "testing"

func TestStateOfCEP(t *testing.T) {
	for cep, want := range map[string]string{
		"01310-100": "SP", "20040-020": "RJ", "29010-120": "ES", "30130-010": "MG", "40020-000": "BA", "49010-020": "SE",
		"50030-230": "PE", "57020-050": "AL", "58010-000": "PB", "59012-300": "RN", "60060-440": "CE", "64000-020": "PI",
		"65010-000": "MA", "66010-000": "PA", "68900-073": "AP", "69005-010": "AM", "69301-000": "RR", "69900-062": "AC",
		"70040-010": "DF", "72800-000": "GO", "73010-000": "DF", "74003-010": "GO", "76801-000": "RO", "77001-002": "TO",
		"78005-000": "MT", "79002-000": "MS", "80010-000": "PR", "88010-000": "SC", "90010-000": "RS",
	} {
		if got, ok := StateOfCEP(cep); !ok || got != want {
			t.Errorf("StateOfCEP(%s) = %q %v, want %s", cep, got, ok, want)
		}
	}
	for _, bad := range []string{"00999-999", "78900-000", "1310-100", "", "abcdefgh", "013101000"} {
		if got, ok := StateOfCEP(bad); ok {
			t.Errorf("StateOfCEP(%q) = %q", bad, got)
		}
	}
	seen := map[string]bool{}
	for _, r := range cepRanges {
		seen[r.state] = true
	}
	if len(seen) != 27 {
		t.Errorf("the ranges name %d states, want 27", len(seen))
	}
}

func TestCitiesOf(t *testing.T) {
	ac := CitiesOf("AC")
	if len(ac) != 22 || ac[0] != "Acrelândia" {
		t.Errorf("CitiesOf(AC) = %d cities from %v", len(ac), ac[:1])
	}
	if n := len(CitiesOf("SP")); n != 645 {
		t.Errorf("SP has %d municipalities, want 645", n)
	}
	if CitiesOf("XX") != nil {
		t.Error("an unknown state has cities")
	}
}
