// Package pix builds PIX BR Codes (the EMV QR Code Merchant Presented Mode
// payload of the Brazilian Central Bank's PIX manual) and draws them as QR
// images.
package pix

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"unicode"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/qr"
	"github.com/shopspring/decimal"
	"golang.org/x/text/unicode/norm"
)

// Code is what a BR Code carries.
type Code struct {
	// Key is the receiver's PIX key (static code). URL is a location (without
	// scheme) of a dynamic charge; exactly one of them is set.
	Key  string
	URL  string
	Info string // additional information shown to the payer (static only)
	// Amount is the value to pay; zero leaves it to the payer.
	Amount decimal.Decimal
	Name   string // merchant name, up to 25 characters
	City   string // merchant city, up to 15 characters
	TxID   string // transaction id, up to 25 letters and digits; "***" when empty
}

func tlv(id string, value string) string { return fmt.Sprintf("%s%02d%s", id, len(value), value) }

// ascii keeps letters without their accents, digits and a few signs: BR
// Codes are read by many apps that accept nothing else.
func ascii(s string, max int) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" .-/&@", r)):
			b.WriteRune(r)
		}
	}
	out := strings.TrimSpace(b.String())
	if len(out) > max {
		out = strings.TrimSpace(out[:max])
	}
	return out
}

// Payload builds the BR Code text, CRC included.
func (c Code) Payload() (string, error) {
	if (c.Key == "") == (c.URL == "") {
		return "", errors.New("pix: give a key or a location URL")
	}
	name, city := ascii(c.Name, 25), ascii(c.City, 15)
	if name == "" || city == "" {
		return "", errors.New("pix: merchant name and city are required")
	}
	mai := tlv("00", "br.gov.bcb.pix")
	if c.Key != "" {
		mai += tlv("01", c.Key)
		if info := ascii(c.Info, 72-len(c.Key)); info != "" {
			mai += tlv("02", info)
		}
	} else {
		mai += tlv("25", c.URL)
	}
	if len(mai) > 99 {
		return "", errors.New("pix: key or URL too long")
	}
	// A dynamic code carries neither amount nor txid: the payer's bank
	// reads both from the payload at its location (the BR Code manual,
	// 6.2; pix-utils reads it so, TestOutsideJudges).
	txid := "***"
	if c.TxID != "" && c.URL == "" {
		txid = c.TxID
		if len(txid) > 25 || strings.IndexFunc(txid, func(r rune) bool { return r > 0x7f || !(unicode.IsLetter(r) || unicode.IsDigit(r)) }) >= 0 {
			return "", errors.New("pix: txid must be up to 25 letters and digits")
		}
	}
	var b strings.Builder
	b.WriteString(tlv("00", "01"))
	if c.URL != "" {
		b.WriteString(tlv("01", "12")) // a dynamic code is paid once
	}
	b.WriteString(tlv("26", mai))
	b.WriteString(tlv("52", "0000"))
	b.WriteString(tlv("53", "986"))
	if c.Amount.IsPositive() && c.URL == "" {
		b.WriteString(tlv("54", c.Amount.StringFixed(2)))
	}
	b.WriteString(tlv("58", "BR"))
	b.WriteString(tlv("59", name))
	b.WriteString(tlv("60", city))
	b.WriteString(tlv("62", tlv("05", txid)))
	b.WriteString("6304")
	s := b.String()
	return s + fmt.Sprintf("%04X", CRC16(s)), nil
}

// CRC16 is CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF), the
// BR Code's checksum.
func CRC16(s string) uint16 {
	crc := uint16(0xFFFF)
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for b := 0; b < 8; b++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// Valid checks a BR Code's structure (well-formed TLVs, the PIX GUI) and
// its CRC.
func Valid(payload string) bool {
	if len(payload) < 8 || payload[len(payload)-8:len(payload)-4] != "6304" {
		return false
	}
	if fmt.Sprintf("%04X", CRC16(payload[:len(payload)-4])) != payload[len(payload)-4:] {
		return false
	}
	fields := map[string]string{}
	for i := 0; i < len(payload); {
		if i+4 > len(payload) {
			return false
		}
		id := payload[i : i+2]
		var n int
		if _, err := fmt.Sscanf(payload[i+2:i+4], "%02d", &n); err != nil || i+4+n > len(payload) {
			return false
		}
		fields[id] = payload[i+4 : i+4+n]
		i += 4 + n
	}
	return fields["00"] == "01" && strings.Contains(strings.ToLower(fields["26"]), "br.gov.bcb.pix") && fields["53"] == "986" && fields["58"] == "BR"
}

// QRPNG draws the payload as a QR code (error correction M) of about size
// pixels, as PNG.
func QRPNG(payload string, size int) ([]byte, error) {
	code, err := qr.Encode(payload, qr.M, qr.Unicode)
	if err != nil {
		return nil, err
	}
	code, err = barcode.Scale(code, size, size)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, code); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
