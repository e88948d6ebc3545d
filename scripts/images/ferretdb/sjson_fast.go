// Added to FerretDB v1.24's sjson package by the Gamer Friendship and Task Service's build
// (scripts/provision.sh); not part of upstream FerretDB. Apache 2.0, like the code around it.
// Why: README.md beside this file ("Decoding without a decoder per value").
//
// Upstream decodes every scalar of a stored document with a json.Decoder of its own (an
// allocation and a scanner per value): a third of a bulk update's reading time on the tasks
// service's documents. The scalars sjson writes most are decoded here directly; anything
// else, or any text these fast paths do not recognise as what sjson.Marshal writes, goes
// to the general decoder as before, so the decoded values are the same.

package sjson

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// fastScalar decodes data of schema type t when it is a plain case: a string without
// escapes, an int, a long, a date or a boolean. ok is false for anything else.
func fastScalar(data []byte, t elemType) (v any, ok bool) {
	switch t {
	case elemTypeString:
		if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
			return nil, false
		}

		body := data[1 : len(data)-1]
		for _, c := range body {
			if c == '\\' || c == '"' || c < 0x20 {
				return nil, false
			}
		}

		// json.Decoder replaces invalid UTF-8 with U+FFFD: leave that to it
		if !utf8.Valid(body) {
			return nil, false
		}

		return string(body), true

	case elemTypeInt, elemTypeLong, elemTypeDate:
		if !plainInteger(data) {
			return nil, false
		}

		bits := 64
		if t == elemTypeInt {
			bits = 32
		}

		n, err := strconv.ParseInt(string(data), 10, bits)
		if err != nil {
			return nil, false
		}

		switch t {
		case elemTypeInt:
			return int32(n), true
		case elemTypeLong:
			return n, true
		default:
			return time.UnixMilli(n), true
		}

	case elemTypeBool:
		switch string(data) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}

	return nil, false
}

// plainInteger tells whether data is a JSON integer: an optional '-', then "0" or digits
// without a leading zero (strconv would also take '+', '_' and leading zeros).
func plainInteger(data []byte) bool {
	if len(data) > 0 && data[0] == '-' {
		data = data[1:]
	}

	if len(data) == 0 || (data[0] == '0' && len(data) > 1) {
		return false
	}

	for _, c := range data {
		if c < '0' || c > '9' {
			return false
		}
	}

	return true
}
