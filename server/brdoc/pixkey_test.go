package brdoc

import (
	"errors"
	"regexp"
	"testing"
)

func TestNormalizePixKey(t *testing.T) {
	for _, c := range []struct{ in, key, kind string }{
		{"529.982.247-25", "52998224725", PixCPF},
		{"52998224725", "52998224725", PixCPF},
		{" 11.222.333/0001-81 ", "11222333000181", PixCNPJ},
		{"11222333000181", "11222333000181", PixCNPJ},
		{"12.ABC.345/01DE-35", "12ABC34501DE35", PixCNPJ},
		{"(11) 98888-7777", "+5511988887777", PixPhone},
		{"+55 11 98888-7777", "+5511988887777", PixPhone},
		{"+5511988887777", "+5511988887777", PixPhone},
		{"5511988887777", "+5511988887777", PixPhone},
		{"(21) 3333-4444", "+552133334444", PixPhone},
		{"Financeiro@Example.COM.br", "financeiro@example.com.br", PixEmail},
		{"123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000", PixEVP},
	} {
		key, kind, err := NormalizePixKey(c.in)
		if err != nil || key != c.key || kind != c.kind {
			t.Errorf("NormalizePixKey(%q) = %q %q %v, want %q %q", c.in, key, kind, err, c.key, c.kind)
		}
	}
	long := ""
	for len(long) < 70 {
		long += "a"
	}
	for _, in := range []string{"", "not a key", "529.982.247-26", "52998224726", "11111111111", "11.222.333/0001-82",
		"(11) 8888-7777", "(11) 88888-7777", "+1 415 555 0100", "(01) 98888-7777", "a@b", "a b@example.com",
		"Fin <fin@example.com>", long + "@example.com", "123e4567-e89b-12d3-a456-42661417400", "123e4567e89b12d3a456426614174000"} {
		if key, _, err := NormalizePixKey(in); !errors.Is(err, ErrPixKey) {
			t.Errorf("NormalizePixKey(%q) = %q, %v; want ErrPixKey", in, key, err)
		}
	}
}

// TestPixKeyPattern: every key NormalizePixKey takes, in every form,
// matches the pattern the OpenAPI document gives a PIX key.
func TestPixKeyPattern(t *testing.T) {
	re := regexp.MustCompile(PixKeyPattern)
	for _, in := range []string{"", " 529.982.247-25 ", "52998224725", "11.222.333/0001-81", "12.ABC.345/01DE-35", "(11) 98888-7777",
		"+55 11 98888-7777", "5511988887777", "Financeiro@Example.COM.br", "o'neil+nf@x-y.com.br",
		"123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000"} {
		if _, _, err := NormalizePixKey(in); err != nil && in != "" {
			t.Errorf("NormalizePixKey(%q): %v", in, err)
		}
		if !re.MatchString(in) {
			t.Errorf("%q is a key the pattern refuses", in)
		}
	}
	for _, in := range []string{"not a key", "chave#1", "a b"} {
		if re.MatchString(in) {
			t.Errorf("%q matches the pattern", in)
		}
	}
}
