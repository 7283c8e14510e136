package sefaz

import (
	"encoding/json"
	"strconv"
	"sync"
)

// returnTexts are the NF-e's return codes (cStat) and their texts, as the
// Portal Nacional da NF-e lists them (data/cstat.json).
var returnTexts = sync.OnceValue(func() map[int]string {
	b, err := data.ReadFile("data/cstat.json")
	if err != nil {
		return map[int]string{}
	}
	var rows []struct{ Cod, Msg string }
	if json.Unmarshal(b, &rows) != nil {
		return map[int]string{}
	}
	out := make(map[int]string, len(rows))
	for _, r := range rows {
		if n, err := strconv.Atoi(r.Cod); err == nil {
			out[n] = r.Msg
		}
	}
	return out
})

// ReturnText is the text of a return code (cStat), as the manual writes
// it; false for a code it does not list.
func ReturnText(code int) (string, bool) {
	t, ok := returnTexts()[code]
	return t, ok
}
