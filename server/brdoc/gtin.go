package brdoc

// ValidGTIN reports whether s is a GTIN: 8, 12, 13 or 14 digits whose last
// is GS1's check digit (weights 3 and 1 from the right, modulo 10).
func ValidGTIN(s string) bool {
	switch len(s) {
	case 8, 12, 13, 14:
	default:
		return false
	}
	sum := 0
	for i := len(s) - 2; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if (len(s)-2-i)%2 == 0 {
			d *= 3
		}
		sum += d
	}
	last := s[len(s)-1]
	return last >= '0' && last <= '9' && int(last-'0') == (10-sum%10)%10
}
