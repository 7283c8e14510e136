package statement

import (
	"regexp"
	"strings"

	"fincom/store"
)

// What a line's memo says it is, as Brazilian banks write them.
const (
	KindFee   = "fee"   // a bank's tariff: tarifa, cesta or pacote de serviços, manutenção de conta
	KindYield = "yield" // an investment's yield: rendimento, remuneração de aplicação
)

var (
	feeMemo   = regexp.MustCompile(`\b(TARIFA|TAR|CESTA|PACOTE|MANUT(ENCAO)?|ANUIDADE|TX|TAXA)\b`)
	yieldMemo = regexp.MustCompile(`\b(REND(IMENTO)?S?|REMUNERACAO|RENT(ABILIDADE)?|APLIC(ACAO)?\s+AUT)\b`)
)

// Kind reads what a line is from its memo and direction: a debit that
// reads as a bank's tariff is KindFee, a credit that reads as a yield is
// KindYield, anything else "" (the memo is read without case or accents).
func Kind(memo string, credit bool) string {
	m := strings.ToUpper(store.Fold(memo))
	switch {
	case !credit && feeMemo.MatchString(m):
		return KindFee
	case credit && yieldMemo.MatchString(m):
		return KindYield
	}
	return ""
}
