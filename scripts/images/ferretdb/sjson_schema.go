// Added to FerretDB v1.24's sjson package by the Gamer Friendship and Task Service's build
// (scripts/provision.sh); not part of upstream FerretDB. Apache 2.0, like the code around it.
// Why: README.md beside this file ("Schemas parsed and written without encoding/json").
//
// A document whose keys are ids (the tasks service's progress documents: one entry per
// gamer task) has a schema text of its own, so the schema cache never hits and every read
// decoded the schema by reflection, every write built it with json.Marshal per key and a
// buffer per value. The schema text sjson.Marshal writes is parsed and written here
// directly; anything else goes to upstream's code, so the results are the same.

package sjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/types"
)

// decodeSchema decodes the schema text of a stored document ("$s"), from the cache, by
// parseSchema, or by upstream's decoder when parseSchema does not take the text.
func decodeSchema(jsch []byte) (*schema, error) {
	if sch, ok := cachedSchema(jsch); ok {
		return sch, nil
	}

	sch, text, ok := parseSchema(jsch)
	if !ok {
		var err error
		if sch, err = decodeSchemaUpstream(jsch); err != nil {
			return nil, err
		}

		text = string(jsch)
	}

	cacheSchema(text, sch)

	return sch, nil
}

// decodeSchemaUpstream is upstream's decoding of a schema text, moved here from Unmarshal
// unchanged (Unmarshal wraps its error, as it did).
func decodeSchemaUpstream(jsch []byte) (*schema, error) {
	sch := new(schema)
	r := bytes.NewReader(jsch)
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()

	if err := dec.Decode(sch); err != nil {
		return nil, err
	}

	if err := checkConsumed(dec, r); err != nil {
		return nil, err
	}

	return sch, nil
}

// schemaMaxDepth bounds parseSchema's recursion (a nested object takes two levels, an array
// one); deeper texts go to upstream's decoder, which has its own limit. MongoDB nests
// documents 100 deep at most.
const schemaMaxDepth = 1000

// parseSchema decodes a schema text exactly as written by marshalSchemaForDoc into what
// upstream's decoder yields for it. It takes only that form: compact, members in
// marshalSchemaForDoc's order, each elem with the one member its type calls for, strings
// without escapes or control characters and in valid UTF-8, no property twice. ok is false
// for anything else. text is the schema text as a string: the keys are substrings of it.
func parseSchema(jsch []byte) (sch *schema, text string, ok bool) {
	p := schemaParser{text: string(jsch)}

	// the structs the text calls for, in one block of each kind; every elem is a property
	// or an item, so their number bounds both. (A key or an options string cannot hold
	// `{"t":"`, since it cannot hold an unescaped '"'.)
	var elems, composites, objects int
	for rest := p.text; ; {
		i := strings.Index(rest, `{"t":"`)
		if i < 0 {
			break
		}

		rest = rest[i+len(`{"t":"`):]
		elems++

		switch {
		case strings.HasPrefix(rest, `object"`):
			objects++
			composites++
		case strings.HasPrefix(rest, `array"`), strings.HasPrefix(rest, `binData"`), strings.HasPrefix(rest, `regex"`):
			composites++
		}
	}

	p.elems = make([]elem, composites)
	p.schemas = make([]schema, objects+1)
	p.items = make([]*elem, 0, elems)
	p.keys = make([]string, 0, elems)
	p.pending = make([]property, 0, elems)

	if sch, ok = p.schema(0); !ok || p.i != len(p.text) {
		return nil, "", false
	}

	return sch, p.text, true
}

// Decoded elems of the types that have no member but "t", shared by every schema
// parseSchema decodes: nothing writes to a decoded schema (cached ones are shared already).
var (
	doubleElem    = &elem{Type: elemTypeDouble}
	stringElem    = &elem{Type: elemTypeString}
	objectIDElem  = &elem{Type: elemTypeObjectID}
	boolElem      = &elem{Type: elemTypeBool}
	dateElem      = &elem{Type: elemTypeDate}
	nullElem      = &elem{Type: elemTypeNull}
	intElem       = &elem{Type: elemTypeInt}
	timestampElem = &elem{Type: elemTypeTimestamp}
	longElem      = &elem{Type: elemTypeLong}
)

// schemaParser reads a schema text, carving its structs from a few blocks instead of an
// allocation each.
type schemaParser struct {
	text string
	i    int

	elems   []elem     // not yet used
	schemas []schema   // not yet used
	items   []*elem    // arrays' items, each array's a slice of it
	keys    []string   // schemas' $k, each schema's a slice of it
	pending []property // properties and items read of the schemas and arrays being read, innermost last
}

// property is a schema's property, or an array's item (without a key).
type property struct {
	key  string
	elem *elem
}

// schema reads `{}` or `{"p":{<key>:<elem>,...},"$k":[<key>,...]}`.
func (p *schemaParser) schema(depth int) (*schema, bool) {
	if depth > schemaMaxDepth {
		return nil, false
	}

	sch := p.newSchema()
	if p.consume(`{}`) {
		return sch, true
	}

	if !p.consume(`{"p":{`) {
		return nil, false
	}

	start := len(p.pending)
	for {
		key, ok := p.string()
		if !ok || !p.consume(`:`) {
			return nil, false
		}

		e, ok := p.elem(depth + 1)
		if !ok {
			return nil, false
		}

		p.pending = append(p.pending, property{key, e})

		if p.consume(`,`) {
			continue
		}

		if p.consume(`},"$k":[`) {
			break
		}

		return nil, false
	}

	props := p.pending[start:]
	sch.Properties = make(map[string]*elem, len(props))
	for _, prop := range props {
		sch.Properties[prop.key] = prop.elem
	}
	p.pending = p.pending[:start]

	// upstream's decoder would keep the last of a key given twice: leave that to it
	if len(sch.Properties) != len(props) {
		return nil, false
	}

	keysStart := len(p.keys)
	for {
		key, ok := p.string()
		if !ok {
			return nil, false
		}

		p.keys = append(p.keys, key)

		if p.consume(`,`) {
			continue
		}

		if p.consume(`]}`) {
			break
		}

		return nil, false
	}

	// a slice of its own when the block was too small (a text that is not sjson's)
	sch.Keys = p.keys[keysStart:len(p.keys):len(p.keys)]

	return sch, true
}

// elem reads `{"t":<type>}`, with `,"$s":<schema>` for an object, `,"i":[<elem>,...]` for
// an array, `,"s":<subtype>` for binary data and `,"o":<options>` for a regex.
func (p *schemaParser) elem(depth int) (*elem, bool) {
	if depth > schemaMaxDepth || !p.consume(`{"t":`) {
		return nil, false
	}

	t, scalar, ok := p.elemType()
	if !ok {
		return nil, false
	}

	if scalar != nil {
		return scalar, p.consume(`}`)
	}

	e := p.newElem()
	e.Type = t

	switch e.Type {
	case elemTypeObject:
		if !p.consume(`,"$s":`) {
			return nil, false
		}

		if e.Schema, ok = p.schema(depth + 1); !ok {
			return nil, false
		}

	case elemTypeArray:
		if !p.consume(`,"i":[`) {
			return nil, false
		}

		if p.consume(`]`) {
			// upstream's decoder gives an empty slice, not nil (nil items are an error)
			e.Items = []*elem{}
			break
		}

		start := len(p.pending)
		for {
			item, ok := p.elem(depth + 1)
			if !ok {
				return nil, false
			}

			p.pending = append(p.pending, property{elem: item})

			if p.consume(`,`) {
				continue
			}

			if p.consume(`]`) {
				break
			}

			return nil, false
		}

		itemsStart := len(p.items)
		for _, item := range p.pending[start:] {
			p.items = append(p.items, item.elem)
		}
		e.Items = p.items[itemsStart:len(p.items):len(p.items)]
		p.pending = p.pending[:start]

	case elemTypeBinData:
		if !p.consume(`,"s":`) {
			return nil, false
		}

		subtype, ok := p.subtype()
		if !ok {
			return nil, false
		}

		e.Subtype = &subtype

	case elemTypeRegex:
		if !p.consume(`,"o":`) {
			return nil, false
		}

		options, ok := p.string()
		if !ok {
			return nil, false
		}

		e.Options = &options
	}

	return e, p.consume(`}`)
}

// elemType reads a type name sjson writes, as its constant, and the shared elem of a type
// that has no other member.
func (p *schemaParser) elemType() (elemType, *elem, bool) {
	s, ok := p.string()
	if !ok {
		return "", nil, false
	}

	switch t := elemType(s); t {
	case elemTypeObject, elemTypeArray, elemTypeBinData, elemTypeRegex:
		return t, nil, true
	case elemTypeDouble:
		return t, doubleElem, true
	case elemTypeString:
		return t, stringElem, true
	case elemTypeObjectID:
		return t, objectIDElem, true
	case elemTypeBool:
		return t, boolElem, true
	case elemTypeDate:
		return t, dateElem, true
	case elemTypeNull:
		return t, nullElem, true
	case elemTypeInt:
		return t, intElem, true
	case elemTypeTimestamp:
		return t, timestampElem, true
	case elemTypeLong:
		return t, longElem, true
	}

	return "", nil, false
}

// subtype reads a binary subtype: a JSON integer that fits a byte (upstream's decoder
// refuses anything else).
func (p *schemaParser) subtype() (types.BinarySubtype, bool) {
	end := p.i
	for end < len(p.text) && p.text[end] >= '0' && p.text[end] <= '9' {
		end++
	}

	digits := p.text[p.i:end]
	if len(digits) == 0 || len(digits) > 3 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}

	n, err := strconv.ParseUint(digits, 10, 8)
	if err != nil {
		return 0, false
	}

	p.i = end

	return types.BinarySubtype(n), true
}

// string reads a JSON string that decodes to its own bytes: no escapes, no control
// characters, valid UTF-8 (upstream's decoder would replace invalid bytes).
func (p *schemaParser) string() (string, bool) {
	if p.i >= len(p.text) || p.text[p.i] != '"' {
		return "", false
	}

	start := p.i + 1
	end := start
	ascii := true
	for end < len(p.text) && p.text[end] != '"' {
		switch c := p.text[end]; {
		case c == '\\', c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		end++
	}

	if end == len(p.text) || (!ascii && !utf8.ValidString(p.text[start:end])) {
		return "", false
	}

	p.i = end + 1

	return p.text[start:end], true
}

// consume reads s if the text continues with it.
func (p *schemaParser) consume(s string) bool {
	if !strings.HasPrefix(p.text[p.i:], s) {
		return false
	}

	p.i += len(s)

	return true
}

// newElem and newSchema carve from the blocks parseSchema sized (a text that is not
// sjson's may need more).
func (p *schemaParser) newElem() *elem {
	if len(p.elems) == 0 {
		return new(elem)
	}

	e := &p.elems[0]
	p.elems = p.elems[1:]

	return e
}

func (p *schemaParser) newSchema() *schema {
	if len(p.schemas) == 0 {
		return new(schema)
	}

	s := &p.schemas[0]
	p.schemas = p.schemas[1:]

	return s
}

// schemaScratch holds a schema text while marshalSchemaPrefix sizes the document's buffer.
var schemaScratch = sync.Pool{New: func() any { return new([]byte) }}

// marshalSchemaPrefix returns `{"$s":<the schema text of td>` for Marshal, in a buffer with
// room for as much again: a document's values take about as much text as its schema, and
// upstream's buffer grew from 64 bytes, copied at each doubling. Its error is
// marshalSchemaForDoc's.
func marshalSchemaPrefix(td *types.Document) ([]byte, error) {
	scratch := schemaScratch.Get().(*[]byte)

	sch, err := appendSchema((*scratch)[:0], td)
	if err != nil {
		return nil, err
	}

	b := make([]byte, 0, 2*len(sch)+64)
	b = append(b, `{"$s":`...)
	b = append(b, sch...)

	// keep a grown scratch buffer, unless it grew for an unusually large document
	if cap(sch) <= 1<<20 {
		*scratch = sch
		schemaScratch.Put(scratch)
	}

	return b, nil
}

// appendSchema appends the schema text of td, as marshalSchemaForDoc writes it, to b.
// Its error is marshalSchemaForDoc's.
func appendSchema(b []byte, td *types.Document) ([]byte, error) {
	if fast, ok := appendDocSchema(b, td); ok {
		return fast, nil
	}

	// a duplicated key or a type sjson does not store: upstream panics, as it did
	sch, err := marshalSchemaForDoc(td)
	if err != nil {
		return nil, err
	}

	return append(b, sch...), nil
}

// appendDocSchema appends what marshalSchemaForDoc returns for td, in one buffer. ok is
// false for a document with a key twice or a value of a type sjson does not store.
func appendDocSchema(b []byte, td *types.Document) ([]byte, bool) {
	n := td.Len()
	if n == 0 {
		return append(b, `{}`...), true
	}

	if hasDuplicate(td) {
		return nil, false
	}

	b = append(b, `{"p":{`...)

	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}

		key, value := td.FieldAt(i)

		b = appendJSONString(b, key)
		b = append(b, ':')

		var ok bool
		if b, ok = appendElemSchema(b, value); !ok {
			return nil, false
		}
	}

	b = append(b, `},"$k":[`...)

	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}

		key, _ := td.FieldAt(i)
		b = appendJSONString(b, key)
	}

	return append(b, `]}`...), true
}

// appendElemSchema appends what marshalElemForSingleValue returns for value.
func appendElemSchema(b []byte, value any) ([]byte, bool) {
	switch val := value.(type) {
	case *types.Document:
		b = append(b, `{"t":"object","$s":`...)

		var ok bool
		if b, ok = appendDocSchema(b, val); !ok {
			return nil, false
		}

		return append(b, '}'), true

	case *types.Array:
		b = append(b, `{"t":"array","i":[`...)

		for i := 0; i < val.Len(); i++ {
			if i > 0 {
				b = append(b, ',')
			}

			item, err := val.Get(i)
			if err != nil {
				return nil, false
			}

			var ok bool
			if b, ok = appendElemSchema(b, item); !ok {
				return nil, false
			}
		}

		return append(b, `]}`...), true

	case float64:
		return append(b, `{"t":"double"}`...), true
	case string:
		return append(b, `{"t":"string"}`...), true
	case types.Binary:
		// json.Marshal writes a BinarySubtype (a byte, no marshaler of its own) as a number
		b = append(b, `{"t":"binData","s":`...)
		b = strconv.AppendUint(b, uint64(val.Subtype), 10)

		return append(b, '}'), true

	case types.ObjectID:
		return append(b, `{"t":"objectId"}`...), true
	case bool:
		return append(b, `{"t":"bool"}`...), true
	case time.Time:
		return append(b, `{"t":"date"}`...), true
	case types.NullType:
		return append(b, `{"t":"null"}`...), true
	case types.Regex:
		b = append(b, `{"t":"regex","o":`...)
		b = appendJSONString(b, val.Options)

		return append(b, '}'), true

	case int32:
		return append(b, `{"t":"int"}`...), true
	case types.Timestamp:
		return append(b, `{"t":"timestamp"}`...), true
	case int64:
		return append(b, `{"t":"long"}`...), true
	}

	return nil, false
}

// hasDuplicate tells whether a key occurs twice (types.Document.Get, which upstream calls
// for every key, panics then). Comparing each pair is the faster up to a few dozen keys
// (measured on 22: 0.27 µs, a map 0.9 µs).
func hasDuplicate(td *types.Document) bool {
	n := td.Len()
	if n <= 32 {
		for i := range n {
			key, _ := td.FieldAt(i)
			for j := i + 1; j < n; j++ {
				if other, _ := td.FieldAt(j); other == key {
					return true
				}
			}
		}

		return false
	}

	seen := make(map[string]struct{}, n)
	for i := range n {
		key, _ := td.FieldAt(i)
		if _, dup := seen[key]; dup {
			return true
		}

		seen[key] = struct{}{}
	}

	return false
}
