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
	"encoding/json"
	"hash/maphash"
	"strconv"
	"sync"
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

// splitObject splits a stored JSON object into its members' raw values, as a json.Decoder
// decoding into a map[string]json.RawMessage does, in one pass and without reflection.
// It takes only what sjson.Marshal writes: compact JSON (no whitespace outside strings),
// keys without escapes or control characters and in valid UTF-8, no key twice. ok is false for anything else, which then goes to
// the upstream decoder.
func splitObject(data []byte) (m map[string]json.RawMessage, ok bool) {
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		return nil, false
	}

	m = make(map[string]json.RawMessage, 8)
	if len(data) == 2 {
		return m, true
	}

	i := 1
	for {
		if i >= len(data) || data[i] != '"' {
			return nil, false
		}

		keyStart := i + 1
		keyEnd := keyStart
		for keyEnd < len(data) && data[keyEnd] != '"' {
			if c := data[keyEnd]; c == '\\' || c < 0x20 {
				return nil, false
			}
			keyEnd++
		}

		// json.Decoder replaces invalid UTF-8 in a key with U+FFFD: leave that to it
		if !utf8.Valid(data[keyStart:keyEnd]) {
			return nil, false
		}

		if keyEnd+1 >= len(data) || data[keyEnd+1] != ':' {
			return nil, false
		}

		key := string(data[keyStart:keyEnd])
		if _, dup := m[key]; dup {
			return nil, false
		}

		valueStart := keyEnd + 2
		valueEnd, ok := skipValue(data, valueStart)
		if !ok || valueEnd >= len(data) {
			return nil, false
		}

		m[key] = data[valueStart:valueEnd]

		switch data[valueEnd] {
		case ',':
			i = valueEnd + 1
		case '}':
			return m, valueEnd == len(data)-1
		default:
			return nil, false
		}
	}
}

// splitArray splits a stored JSON array into its elements' raw values, on the same terms
// as splitObject.
func splitArray(data []byte) (elems []json.RawMessage, ok bool) {
	if len(data) < 2 || data[0] != '[' || data[len(data)-1] != ']' {
		return nil, false
	}

	if len(data) == 2 {
		return []json.RawMessage{}, true
	}

	elems = make([]json.RawMessage, 0, 16)

	i := 1
	for {
		end, ok := skipValue(data, i)
		if !ok || end >= len(data) {
			return nil, false
		}

		elems = append(elems, data[i:end])

		switch data[end] {
		case ',':
			i = end + 1
		case ']':
			return elems, end == len(data)-1
		default:
			return nil, false
		}
	}
}

// skipValue returns the index just past the compact JSON value starting at data[i]. It
// finds where a value ends, nothing more: what is inside is checked when the value itself
// is decoded (by splitObject, splitArray, fastScalar or the upstream decoders).
func skipValue(data []byte, i int) (end int, ok bool) {
	if i >= len(data) {
		return 0, false
	}

	switch data[i] {
	case '"':
		return skipString(data, i)

	case '{', '[':
		// the closing bracket each open one expects, innermost last
		closers := make([]byte, 0, 8)
		for i < len(data) {
			switch c := data[i]; c {
			case '"':
				var ok bool
				if i, ok = skipString(data, i); !ok {
					return 0, false
				}
				continue
			case '{':
				closers = append(closers, '}')
			case '[':
				closers = append(closers, ']')
			case '}', ']':
				if len(closers) == 0 || closers[len(closers)-1] != c {
					return 0, false
				}
				closers = closers[:len(closers)-1]
				if len(closers) == 0 {
					return i + 1, true
				}
			case ' ', '\t', '\n', '\r':
				return 0, false
			}
			i++
		}

		return 0, false

	default:
		// a number, true, false or null: up to the next delimiter
		start := i
		for i < len(data) {
			switch data[i] {
			case ',', '}', ']':
				return i, i > start
			case '"', '{', '[', ':', ' ', '\t', '\n', '\r':
				return 0, false
			}
			i++
		}

		return i, i > start
	}
}

// skipString returns the index just past the JSON string starting at data[i] (a '"').
func skipString(data []byte, i int) (end int, ok bool) {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}

	return 0, false
}

// schemaCacheMaxEntries and schemaCacheMaxBytes bound the decoded-schema cache: when either
// is reached it starts over empty (a store's documents come in few shapes).
const (
	schemaCacheMaxEntries = 4096
	schemaCacheMaxBytes   = 16 << 20
)

// schemaCache maps a stored document's schema text ("$s") to its decoded schema, which is
// only ever read once decoded. Documents of one shape (same keys, types and array lengths)
// store the same text, so most reads decode no schema at all. A text is cached the second
// time it is decoded: documents keyed by ids (each its own shape) would otherwise fill the
// cache with schemas read once, ~23 MiB of heap for 4,096 progress documents, for no
// measurable gain (README.md, "Schemas parsed and written without encoding/json").
var schemaCache = struct {
	sync.RWMutex
	m     map[string]*schema
	bytes int
	seen  map[uint64]struct{} // hashes of the texts decoded once since the last start over
	seed  maphash.Seed
}{m: map[string]*schema{}, seen: map[uint64]struct{}{}, seed: maphash.MakeSeed()}

// cachedSchema returns the decoded schema of the schema text jsch, if it is cached.
func cachedSchema(jsch []byte) (*schema, bool) {
	schemaCache.RLock()
	sch, ok := schemaCache.m[string(jsch)]
	schemaCache.RUnlock()

	return sch, ok
}

// cacheSchema remembers sch as the decoded schema of the schema text jsch if that text was
// decoded before (a hash collision only caches a text early).
func cacheSchema(jsch string, sch *schema) {
	h := maphash.String(schemaCache.seed, jsch)

	schemaCache.Lock()
	defer schemaCache.Unlock()

	if _, again := schemaCache.seen[h]; !again {
		if len(schemaCache.seen) >= schemaCacheMaxEntries {
			schemaCache.seen = map[uint64]struct{}{}
		}

		schemaCache.seen[h] = struct{}{}

		return
	}

	if len(schemaCache.m) >= schemaCacheMaxEntries || schemaCache.bytes+len(jsch) > schemaCacheMaxBytes {
		schemaCache.m = map[string]*schema{}
		schemaCache.bytes = 0
	}

	schemaCache.m[jsch] = sch
	schemaCache.bytes += len(jsch)
}
