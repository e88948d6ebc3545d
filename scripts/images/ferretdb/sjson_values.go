// Added to FerretDB v1.24's sjson package by the Gamer Friendship and Task Service's build
// (scripts/provision.sh); not part of upstream FerretDB. Apache 2.0, like the code around it.
// Why: README.md beside this file ("Values written without encoding/json").
//
// Upstream's Marshal writes each value of a document through its sjson type's MarshalJSON:
// a json.Marshal per string, number and key of a nested document, and a bytes.Buffer per
// nested document or array, copied into its parent's. Every insert and update writes the
// whole document that way. Here the values are appended to the buffer the schema was
// written into, byte for byte as upstream writes them; a value upstream refuses (a NaN or
// an infinity) or panics on (a nil document) sends the document to upstream's code, so the
// error or the panic is upstream's.

package sjson

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/types"
)

// appendDocValues appends what Marshal writes after a document's schema: for each key,
// `,"<key>":<value>` (the key as it is: upstream does not escape top-level keys), then the
// closing '}'. ok is false for a value appendValue does not write; b is then to be
// dropped.
//
// Marshal calls it only once the schema is written, which fails or panics on what sjson
// does not store and on a key given twice at any depth (types.Document.Get, which upstream
// calls for every key, panics then); so each key's value is the one Get would return.
func appendDocValues(b []byte, td *types.Document) ([]byte, bool) {
	for i := range td.Len() {
		key, value := td.FieldAt(i)

		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, '"', ':')

		var ok bool
		if b, ok = appendValue(b, value); !ok {
			return nil, false
		}
	}

	return append(b, '}'), true
}

// appendValue appends what toSJSON(v).MarshalJSON() returns. ok is false for a NaN or an
// infinity (json.Marshal refuses them), a nil document or array (toSJSON dereferences it),
// and a type sjson does not store.
func appendValue(b []byte, v any) ([]byte, bool) {
	switch val := v.(type) {
	case *types.Document:
		if val == nil {
			return nil, false
		}

		b = append(b, '{')

		for i := range val.Len() {
			if i > 0 {
				b = append(b, ',')
			}

			key, value := val.FieldAt(i)

			b = appendJSONString(b, key)
			b = append(b, ':')

			var ok bool
			if b, ok = appendValue(b, value); !ok {
				return nil, false
			}
		}

		return append(b, '}'), true

	case *types.Array:
		if val == nil {
			return nil, false
		}

		b = append(b, '[')

		for i := 0; i < val.Len(); i++ {
			if i > 0 {
				b = append(b, ',')
			}

			item, err := val.Get(i)
			if err != nil {
				return nil, false
			}

			var ok bool
			if b, ok = appendValue(b, item); !ok {
				return nil, false
			}
		}

		return append(b, ']'), true

	case float64:
		return appendJSONFloat(b, val)

	case string:
		return appendJSONString(b, val), true

	case types.Binary:
		// json.Marshal of a []byte: null when nil, else standard base64 in quotes
		if val.B == nil {
			return append(b, "null"...), true
		}

		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, val.B)

		return append(b, '"'), true

	case types.ObjectID:
		// lowercase hex: nothing to escape
		b = append(b, '"')
		b = hex.AppendEncode(b, val[:])

		return append(b, '"'), true

	case bool:
		return strconv.AppendBool(b, val), true

	case time.Time:
		return strconv.AppendInt(b, val.UnixMilli(), 10), true

	case types.NullType:
		return append(b, "null"...), true

	case types.Regex:
		// the pattern only: the options are in the schema
		return appendJSONString(b, val.Pattern), true

	case int32:
		return strconv.AppendInt(b, int64(val), 10), true

	case types.Timestamp:
		return strconv.AppendUint(b, uint64(val), 10), true

	case int64:
		return strconv.AppendInt(b, val, 10), true
	}

	return nil, false
}

// appendJSONFloat appends f as json.Marshal writes a float64 (encoding/json's floatEncoder):
// ECMAScript's number formatting, shortest digits that read back the same, 'f' notation
// from 1e-6 up to 1e21 and 'e' outside it with a two-digit negative exponent shortened
// (1e-07 → 1e-7). ok is false for NaN and the infinities, which json.Marshal refuses.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}

	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}

	b = strconv.AppendFloat(b, f, format, -1, 64)

	if format == 'e' {
		if n := len(b); b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}

	return b, true
}

// jsonSafe tells which ASCII bytes json.Marshal writes in a string as they are (its
// htmlSafeSet): printable ones and DEL, other than '"', '\\' and the HTML characters
// '<', '>' and '&'.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := range safe {
		switch c {
		case '"', '\\', '<', '>', '&':
		default:
			safe[c] = c >= 0x20
		}
	}

	return safe
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as json.Marshal writes a string (encoding/json's appendString
// with HTML escaping): '"' and '\\' escaped with a backslash, \b, \f, \n, \r and \t by
// name, other control characters and '<', '>', '&' as \u00XX, U+2028 and U+2029 as
// \u2028 and \u2029, each byte that is not part of valid UTF-8 as \ufffd, anything else
// as it is.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')

	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}

			b = append(b, s[start:i]...)

			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}

			i++
			start = i

			continue
		}

		r, size := utf8.DecodeRuneInString(s[i:])

		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}

		i += size
		start = i
	}

	b = append(b, s[start:]...)

	return append(b, '"')
}
