// Added to FerretDB v1.24's sjson package by the Gamer Friendship and Task Service's build
// (scripts/provision.sh runs it before building the image); not part of upstream FerretDB.
// Apache 2.0, like the code around it.

package sjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// randomValue returns a random value of a type sjson stores, nested up to depth, with keys
// and regex options that round-trip (see randomWildValue).
func randomValue(rng *rand.Rand, depth int) any {
	return randomValueOf(rng, depth, false)
}

// randomWildValue is randomValue with keys, regex options, strings and patterns of any
// bytes (quotes, backslashes, control characters, HTML characters, U+2028, invalid UTF-8),
// NaN and infinite doubles, which upstream's Marshal refuses, and binary data with nil
// bytes, which it writes as null. Upstream writes top-level keys raw, and invalid UTF-8 as
// U+FFFD, so such documents do not round-trip byte for byte; their texts still must come
// out the same.
func randomWildValue(rng *rand.Rand, depth int) any {
	return randomValueOf(rng, depth, true)
}

func randomValueOf(rng *rand.Rand, depth int, wild bool) any {
	kinds := 12
	if depth > 0 {
		kinds = 16
	}

	switch rng.Intn(kinds) {
	case 0:
		return randomStringOf(rng, wild)
	case 1:
		return int32(rng.Int63n(1<<32) - 1<<31)
	case 2:
		return rng.Int63() - 1<<62
	case 3:
		return randomDouble(rng, wild)
	case 4:
		return rng.Intn(2) == 0
	case 5:
		return types.Null
	case 6:
		return time.UnixMilli(rng.Int63n(4e12) - 1e12).UTC()
	case 7:
		var id types.ObjectID
		rng.Read(id[:])
		return id
	case 8:
		b := make([]byte, rng.Intn(20))
		rng.Read(b)
		subtypes := []types.BinarySubtype{
			types.BinaryGeneric, types.BinaryFunction, types.BinaryGenericOld, types.BinaryUUIDOld,
			types.BinaryUUID, types.BinaryMD5, types.BinaryEncrypted, types.BinaryUser,
		}
		subtype := subtypes[rng.Intn(len(subtypes))]
		if rng.Intn(4) == 0 {
			subtype = types.BinarySubtype(rng.Intn(256))
		}
		if wild && rng.Intn(8) == 0 {
			b = nil
		}
		return types.Binary{Subtype: subtype, B: b}
	case 9:
		return types.Regex{Pattern: randomStringOf(rng, wild), Options: randomOptions(rng, wild)}
	case 10:
		return types.Timestamp(rng.Uint64())
	case 11:
		// a uuid, the commonest stored string
		return randomID(rng)
	case 12, 13:
		return randomDocumentOf(rng, depth-1, wild)
	case 14:
		return randomIDMap(rng, depth-1, wild)
	default:
		n := rng.Intn(6)
		if rng.Intn(4) == 0 {
			n = 100
		}
		a := types.MakeArray(n)
		for range n {
			a.Append(randomValueOf(rng, depth-1, wild))
		}
		return a
	}
}

// randomString mixes plain ids with the characters a JSON string must escape, and those
// json.Marshal escapes besides (HTML characters, U+2028, U+2029), in valid UTF-8.
func randomString(rng *rand.Rand) string {
	return randomStringOf(rng, false)
}

// randomStringOf is randomString, with bytes that are not valid UTF-8 when wild.
func randomStringOf(rng *rand.Rand, wild bool) string {
	pieces := []string{
		"a", "gamer-1", "1b4e28ba-2fa1-11d2-883f-0016d3cca427", `"`, `\`, "\n", "\t", "\r", "\b", "\f",
		"\x00", "\x01", "\x1f", "\x7f", "é", "🎮", "\u2028", "\u2029", "\u2027", "\ufffd", "\U0010ffff",
		"{", "}", "[", "]", ",", ":", " ", "<", ">", "&", "/", "'", "+",
	}
	if wild {
		// a lone continuation byte, a truncated sequence (of U+2028's), a surrogate,
		// an overlong encoding, a code point past U+10FFFF
		pieces = append(pieces, "\xff", "\x80", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xc0\x80", "\xf4\x90\x80\x80")
	}
	var b strings.Builder
	for range rng.Intn(8) {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

// randomDouble returns a double of any magnitude: integers, zeros of both signs,
// subnormals, the largest, values either side of where json.Marshal changes notation
// (1e-6, 1e21), exponents from -324 to 308, any bit pattern; when wild, sometimes NaN or
// an infinity.
func randomDouble(rng *rand.Rand, wild bool) float64 {
	sign := float64(1 - 2*rng.Intn(2))
	switch rng.Intn(10) {
	case 0:
		return float64(rng.Intn(2000) - 1000)
	case 1:
		return sign * []float64{0, math.SmallestNonzeroFloat64, math.MaxFloat64, 1e21, 1e-6, 1e-7, 1e20, 1e-5, 0.1, 1}[rng.Intn(10)]
	case 2:
		// either side of a notation boundary
		boundary := []float64{1e21, 1e-6}[rng.Intn(2)]
		return sign * math.Nextafter(boundary, []float64{0, math.Inf(1)}[rng.Intn(2)])
	case 3:
		// subnormal
		return math.Float64frombits(rng.Uint64()&(1<<52-1) | uint64(rng.Intn(2))<<63)
	case 4:
		f := rng.NormFloat64() * math.Pow(10, float64(rng.Intn(633)-324))
		if math.IsInf(f, 0) {
			return sign * math.MaxFloat64
		}
		return f
	case 5, 6:
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0.5
		}
		return f
	case 7:
		if wild && rng.Intn(3) == 0 {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.Intn(3)]
		}
		return float64(rng.Int63n(1<<53)) * sign
	default:
		return rng.NormFloat64() * 1e6
	}
}

// randomOptions returns regex options: usually flags, sometimes (wild) anything.
func randomOptions(rng *rand.Rand, wild bool) string {
	if wild && rng.Intn(3) == 0 {
		return randomWildKey(rng)
	}

	var b strings.Builder
	for _, c := range "imsx" {
		if rng.Intn(2) == 0 {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// randomID returns a random uuid in its text form.
func randomID(rng *rand.Rand) string {
	var b [16]byte
	rng.Read(b[:])
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func randomDocument(rng *rand.Rand, depth int) *types.Document {
	return randomDocumentOf(rng, depth, false)
}

// randomDocumentOf returns a document of up to 8 keys from a small set (so that shapes
// repeat), or of any keys when wild.
func randomDocumentOf(rng *rand.Rand, depth int, wild bool) *types.Document {
	d, _ := types.NewDocument()
	// no '"' or '\\' in keys: upstream's Marshal writes keys unescaped, so those cannot round-trip
	keys := []string{"_id", "a", "b", "friendIds", "progress", "state", "$k", "p", "t", "i", "é", "🎮", "", "<a&b>", "\u2028"}
	for range rng.Intn(8) {
		key := keys[rng.Intn(len(keys))]
		if wild && rng.Intn(3) == 0 {
			key = randomWildKey(rng)
		}
		d.Set(key, randomValueOf(rng, depth, wild))
	}
	return d
}

// randomIDMap returns a document keyed by unique ids, as the tasks service's progress
// documents are (each a shape of its own): entries like theirs, or random values.
func randomIDMap(rng *rand.Rand, depth int, wild bool) *types.Document {
	d, _ := types.NewDocument()
	for range rng.Intn(9) {
		var v any
		if depth < 0 || rng.Intn(2) == 0 {
			v = progressEntry(rng)
		} else {
			v = randomValueOf(rng, depth, wild)
		}
		d.Set(randomID(rng), v)
	}
	return d
}

// randomWildKey returns a string of any bytes, often not valid UTF-8.
func randomWildKey(rng *rand.Rand) string {
	pieces := []string{"a", `"`, `\`, "\n", "\x00", "\x1f", "\x7f", "<", ">", "&", "é", "\u2028", "\u2029", "\xff", "\xc3", "\xed\xa0\x80", "$", "p", "t"}
	var b strings.Builder
	for range 1 + rng.Intn(5) {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

// progressEntry returns one gamer task's entry of a progress document.
func progressEntry(rng *rand.Rand) *types.Document {
	e := must.NotFail(types.NewDocument("p", int32(rng.Intn(100)), "g", int32(rng.Intn(10)), "c", rng.Intn(3) == 0))
	if c, _ := e.Get("c"); c == true {
		e.Set("at", time.UnixMilli(1_790_000_000_000+rng.Int63n(1e10)).UTC())
		e.Set("by", randomID(rng))
	}
	return e
}

// progressDocument returns a document shaped like the tasks service's gamer_progress ones:
// its tasks map is keyed by gamer task ids, so its schema text is its own.
func progressDocument(rng *rand.Rand) *types.Document {
	tasks := types.MakeDocument(7)
	for range 6 + rng.Intn(2) {
		tasks.Set(randomID(rng), progressEntry(rng))
	}

	applied := types.MakeArray(16)
	for range rng.Intn(17) {
		applied.Append(randomID(rng))
	}

	gamer := fmt.Sprintf("gamer-%d", rng.Intn(100000))
	return must.NotFail(types.NewDocument(
		"_id", "app-1:"+gamer, "applicationId", "app-1", "gamerId", gamer, "epoch", randomID(rng),
		"tasks", tasks, "applied", applied,
	))
}

// gamerTaskDocument returns a document shaped like the tasks service's gamer_tasks ones
// (~1.1 KB stored): every one of them has the same schema text.
func gamerTaskDocument(rng *rand.Rand) *types.Document {
	children := types.MakeArray(3)
	for range 3 {
		children.Append(must.NotFail(types.NewDocument("taskId", randomID(rng), "gamerTaskId", randomID(rng))))
	}

	task := must.NotFail(types.NewDocument(
		"name", "Win five ranked games", "kind", "stat", "period", "daily", "rewardItemId", randomID(rng),
		"rewardQuantity", int32(1),
	))

	created := time.UnixMilli(1_790_000_000_000 + rng.Int63n(1e10)).UTC()
	return must.NotFail(types.NewDocument(
		"_id", randomID(rng), "applicationId", "app-1", "gamerId", fmt.Sprintf("gamer-%d", rng.Intn(100000)),
		"taskId", randomID(rng), "parentGamerTaskId", types.Null, "children", children,
		"isAchievement", false, "family", "daily", "statKey", "wins", "targetValue", int32(5),
		"numberOfGames", int32(0), "task", task, "progress", int32(rng.Intn(5)), "games", int32(rng.Intn(5)),
		"completed", false, "completedAt", types.Null, "completedByEventId", types.Null,
		"claimState", "none", "claimStartedAt", types.Null, "claimedAt", types.Null,
		"appliedEventIds", types.MakeArray(0), "createdAt", created, "expiredAt", created.Add(24*time.Hour),
	))
}

// TestGftsFastDecodingRoundTrip: what sjson.Marshal writes comes back the same through the
// fast paths (and the schema cache, since shapes repeat).
func TestGftsFastDecodingRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := range 5000 {
		doc := randomDocument(rng, 3)
		data, err := Marshal(doc)
		if err != nil {
			t.Fatalf("case %d: marshal: %v", i, err)
		}

		got, err := Unmarshal(data)
		if err != nil {
			t.Fatalf("case %d: unmarshal %s: %v", i, data, err)
		}

		again, err := Marshal(got)
		if err != nil {
			t.Fatalf("case %d: marshal again: %v", i, err)
		}

		if !bytes.Equal(data, again) {
			t.Fatalf("case %d: round trip changed the document:\n%s\n%s", i, data, again)
		}
	}
}

// TestGftsSplitMatchesDecoder: wherever splitObject/splitArray accept a text, json.Decoder
// splits it the same way, or the difference is inside a value that is not valid JSON (and
// so fails when that value is decoded). Texts are sjson output, mutated.
func TestGftsSplitMatchesDecoder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	mutations := []func([]byte) []byte{
		func(b []byte) []byte { return b },
		func(b []byte) []byte { i := rng.Intn(len(b)); return append(append([]byte{}, b[:i]...), b[i+1:]...) },
		func(b []byte) []byte {
			i := rng.Intn(len(b) + 1)
			c := []byte(` "\{}[],:0a`)[rng.Intn(11)]
			return append(append(append([]byte{}, b[:i]...), c), b[i:]...)
		},
	}

	var accepted, fallback int
	for i := range 20000 {
		data, err := Marshal(randomDocument(rng, 2))
		if err != nil {
			t.Fatal(err)
		}
		data = mutations[rng.Intn(len(mutations))](data)

		fast, ok := splitObject(data)
		var slow map[string]json.RawMessage
		slowErr := json.Unmarshal(data, &slow)
		if !ok {
			fallback++
			continue
		}
		accepted++

		if slowErr != nil {
			if allValid(fast) {
				t.Fatalf("case %d: split %s though it is not JSON (%v)", i, data, slowErr)
			}
			continue
		}

		if len(fast) != len(slow) {
			t.Fatalf("case %d: %s: %d members, decoder %d", i, data, len(fast), len(slow))
		}
		for k, v := range slow {
			if !bytes.Equal(fast[k], v) {
				t.Fatalf("case %d: %s: member %q is %s, decoder %s", i, data, k, fast[k], v)
			}
		}

		for k, v := range fast {
			if len(v) == 0 || v[0] != '[' {
				continue
			}
			elems, ok := splitArray(v)
			var slowElems []json.RawMessage
			if !ok || json.Unmarshal(v, &slowElems) != nil {
				continue
			}
			if len(elems) != len(slowElems) {
				t.Fatalf("case %d: %s: %d elements, decoder %d", i, k, len(elems), len(slowElems))
			}
			for j := range elems {
				if !bytes.Equal(elems[j], slowElems[j]) {
					t.Fatalf("case %d: %s[%d] is %s, decoder %s", i, k, j, elems[j], slowElems[j])
				}
			}
		}
	}

	if accepted < 4000 || fallback < 400 {
		t.Fatalf("the cases did not exercise both paths: %d accepted, %d fell back", accepted, fallback)
	}
}

func allValid(m map[string]json.RawMessage) bool {
	for _, v := range m {
		if !json.Valid(v) {
			return false
		}
	}
	return true
}

// TestGftsSplitRefuses: what the fast paths leave to the upstream decoder.
func TestGftsSplitRefuses(t *testing.T) {
	for _, text := range []string{
		``, `{`, `}`, `{"a":1 }`, `{ "a":1}`, `{"a": 1}`, `{"a":1}{}`, `{"a":1,}`, `{"a":1,"a":2}`,
		`{"a\"b":1}`, `{"a":[1}`, `{"a":{]}`, `{"a"}`, `{"a":}`, `null`, `[]`,
	} {
		if _, ok := splitObject([]byte(text)); ok {
			t.Errorf("splitObject(%q) took it", text)
		}
	}

	for _, text := range []string{``, `[`, `[1 ]`, `[1,]`, `[,1]`, `[1][]`, `[{]`, `{}`} {
		if _, ok := splitArray([]byte(text)); ok {
			t.Errorf("splitArray(%q) took it", text)
		}
	}
}

// upstreamMarshal is sjson.Marshal as upstream wrote it: the patches change only how its
// schema and its values are written, and leave upstream's marshalSchemaForDoc and sjson
// types' MarshalJSON methods (which this calls) as they were.
func upstreamMarshal(d *types.Document) ([]byte, error) {
	schema, err := marshalSchemaForDoc(d)
	if err != nil {
		return nil, err
	}

	var buf bytes.Buffer

	buf.WriteString(`{"$s":`)
	buf.Write(schema)

	keys := d.Keys()
	values := d.Values()

	for i, key := range keys {
		buf.WriteByte(',')
		buf.WriteString(`"`)
		buf.WriteString(key)
		buf.WriteString(`":`)

		b, err := toSJSON(values[i]).MarshalJSON()
		if err != nil {
			return nil, err
		}

		buf.Write(b)
	}

	buf.WriteByte('}')

	return buf.Bytes(), nil
}

// checkMarshal: Marshal writes doc byte for byte as upstream's Marshal does, or, for a NaN
// or an infinity, fails as it does (json.Marshal's error about the same value). It
// returns the text, or nil when upstream refuses the document.
func checkMarshal(t *testing.T, name string, doc *types.Document) []byte {
	t.Helper()

	want, wantErr := upstreamMarshal(doc)
	got, err := Marshal(doc)

	if wantErr != nil {
		var wantValue, gotValue *json.UnsupportedValueError
		if !errors.As(wantErr, &wantValue) || !errors.As(err, &gotValue) || gotValue.Str != wantValue.Str {
			t.Fatalf("%s: Marshal gave (%v) %s, upstream failed: %v", name, err, got, wantErr)
		}

		return nil
	}

	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: Marshal gave (%v)\n%q\nupstream\n%q", name, err, got, want)
	}

	return got
}

// TestGftsValuesMatchUpstream: appendJSONString writes every string as json.Marshal does
// (every byte alone and between others, random bytes, the runes it escapes and those near
// them), appendJSONFloat every double (special values, both notations and their boundaries,
// random bit patterns; it refuses NaN and the infinities, as json.Marshal does), and
// appendValue every value as upstream's MarshalJSON of its sjson type.
func TestGftsValuesMatchUpstream(t *testing.T) {
	checkString := func(s string) {
		t.Helper()
		want := append([]byte("x"), must.NotFail(json.Marshal(s))...)
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got, want) {
			t.Fatalf("string %q: wrote %s, json.Marshal %s", s, got, want)
		}
	}

	checkDouble := func(f float64) {
		t.Helper()
		want, err := toSJSON(f).MarshalJSON()
		got, ok := appendJSONFloat([]byte("x"), f)
		if err != nil {
			if ok {
				t.Fatalf("double %v: wrote %s, upstream failed: %v", f, got, err)
			}
			return
		}
		if !ok || !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("double %v (%#x): wrote %s (%v), upstream %s", f, math.Float64bits(f), got, ok, want)
		}
	}

	for c := range 256 {
		for _, s := range []string{string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "é\u2028b", string([]byte{0xe2, 0x80, byte(c)})} {
			checkString(s)
		}
	}

	for _, s := range []string{"", "\u2028", "\u2029", "\u2027", "\u202a", "\u2128", "\ufffd", "\U0010ffff", "\xed\xa0\x80", "\xc0\x80", "\xf4\x90\x80\x80", "\xe2\x80", "<script>&amp;</script>"} {
		checkString(s)
	}

	rng := rand.New(rand.NewSource(6))
	special := []byte("\"\\<>&\x00\x1f\x7f\b\f\n\r\t\xe2\x80\xa8\xa9\xc3\xa9\xed\xf0\x9f\xff")
	for range 30000 {
		b := make([]byte, rng.Intn(12))
		for j := range b {
			if rng.Intn(2) == 0 {
				b[j] = byte(rng.Intn(256))
			} else {
				b[j] = special[rng.Intn(len(special))]
			}
		}
		checkString(string(b))
	}

	for _, f := range []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 1e-7, 1e21, 1e20, 123456789012345678901234.0, 1e100, 1e-100,
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 0x1p-1022, 0x1p-1023, 1 << 53, 1<<53 + 1,
		math.Nextafter(1e21, 0), math.Nextafter(1e-6, 0), math.Nextafter(1e-6, 1), 5e-7, 1.5e-9, 1e-10,
		math.NaN(), math.Inf(1), math.Inf(-1), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000000),
	} {
		checkDouble(f)
		checkDouble(-f)
	}

	var refused int
	for range 200000 {
		f := randomDouble(rng, true)
		if rng.Intn(2) == 0 {
			f = math.Float64frombits(rng.Uint64())
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			refused++
		}
		checkDouble(f)
	}
	if refused < 100 {
		t.Fatalf("only %d doubles were NaN or infinite", refused)
	}

	for i := range 20000 {
		v := randomWildValue(rng, 3)
		want, err := toSJSON(v).MarshalJSON()
		got, ok := appendValue([]byte("x"), v)
		if err != nil {
			if ok {
				t.Fatalf("value %d: wrote %s, upstream failed: %v", i, got, err)
			}
			continue
		}
		if !ok || !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("value %d: wrote (%v)\n%q\nupstream\n%q", i, ok, got, want)
		}
	}
}

// TestGftsValuesRoundTrip: Marshal writes upstream's text for random documents (nested,
// every stored type, keys, strings, patterns and options of any bytes, doubles of every
// kind, NaN and infinities among them, empty documents and arrays, maps keyed by unique
// ids, progress and gamer-task documents), and Unmarshal gives the document back: as it
// was, but with each byte of invalid UTF-8 read back as U+FFFD and nil binary data as null,
// as upstream does. (Top-level keys are kept plain: upstream writes them unescaped.)
func TestGftsValuesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var checked, refused, merged int
	for i := range 6000 {
		var doc *types.Document
		switch i % 6 {
		case 0, 1:
			doc = randomDocument(rng, 3)
		case 2, 3:
			doc = must.NotFail(types.NewDocument(
				"_id", randomID(rng), "w", randomDocumentOf(rng, 3, true), "a", randomWildValue(rng, 2),
				"m", randomIDMap(rng, 2, true),
			))
		case 4:
			doc = progressDocument(rng)
		default:
			doc = gamerTaskDocument(rng)
		}

		name := fmt.Sprintf("case %d", i)
		data := checkMarshal(t, name, doc)
		if data == nil {
			refused++
			continue
		}

		want, ok := readBack(doc)
		if !ok {
			// two keys of a document read back the same: upstream cannot decode it
			merged++
			continue
		}

		got, err := Unmarshal(data)
		if err != nil {
			t.Fatalf("%s: Unmarshal %q: %v", name, data, err)
		}
		if !sameValue(got, want) {
			t.Fatalf("%s: read back\n%q\nwant\n%q", name, must.NotFail(upstreamMarshal(got)), must.NotFail(upstreamMarshal(want.(*types.Document))))
		}
		checked++
	}

	t.Logf("%d read back, %d refused (NaN or infinity), %d with keys that merge", checked, refused, merged)
	if checked < 4000 || refused < 100 {
		t.Fatalf("the cases did not exercise both paths: %d read back, %d refused", checked, refused)
	}
}

// TestGftsValuesFallback: what Marshal leaves to upstream's code (a NaN, an infinity, a nil
// document, a key given twice) fails or panics as it did.
func TestGftsValuesFallback(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		doc := must.NotFail(types.NewDocument("a", "x", "d", must.NotFail(types.NewDocument("b", must.NotFail(types.NewArray(int32(1), f))))))
		checkMarshal(t, fmt.Sprint(f), doc)
		if _, err := Marshal(doc); err == nil {
			t.Fatalf("%v: no error", f)
		}
	}

	panics := func(f func()) (p bool) {
		defer func() { p = recover() != nil }()
		f()
		return
	}

	doc := must.NotFail(types.NewDocument("a", "x", "d", (*types.Document)(nil)))
	if !panics(func() { upstreamMarshal(doc) }) || !panics(func() { Marshal(doc) }) {
		t.Fatal("a nil document did not panic in both")
	}

	// a key given twice (BSON from the wire can have that), among few keys or many, at the
	// top level, in a nested document, in an array: upstream's Get panics
	for _, n := range []int{2, 5, 40} {
		keys := make([]string, n)
		values := make([]any, n)
		for i := range n {
			keys[i], values[i] = fmt.Sprint("k", i), int32(i)
		}
		keys[n-1] = keys[n/2-1]
		dup := must.NotFail(types.ConvertDocument(fieldList{keys, values}))

		for _, doc := range []*types.Document{
			dup,
			must.NotFail(types.NewDocument("a", "x", "d", dup)),
			must.NotFail(types.NewDocument("a", must.NotFail(types.NewArray(int32(1), dup)))),
		} {
			var upstream, got any
			func() { defer func() { upstream = recover() }(); upstreamMarshal(doc) }()
			func() { defer func() { got = recover() }(); Marshal(doc) }()
			if upstream == nil || got != upstream {
				t.Fatalf("%d keys: Marshal panicked with %v, upstream with %v", n, got, upstream)
			}
		}
	}
}

// fieldList makes a document with a key twice (types.ConvertDocument of it).
type fieldList struct {
	keys   []string
	values []any
}

func (f fieldList) Keys() []string { return f.keys }
func (f fieldList) Values() []any  { return f.values }

// readBack returns what upstream's Unmarshal gives for what Marshal writes of v: strings
// (keys, values, patterns, options) with each byte of invalid UTF-8 as U+FFFD, nil binary
// data as null. ok is false when two keys of a document come out the same.
func readBack(v any) (any, bool) {
	valid := func(s string) string { return string([]rune(s)) }

	switch v := v.(type) {
	case *types.Document:
		d := types.MakeDocument(v.Len())
		for _, key := range v.Keys() {
			value, ok := readBack(must.NotFail(v.Get(key)))
			if !ok || d.Has(valid(key)) {
				return nil, false
			}
			d.Set(valid(key), value)
		}
		return d, true
	case *types.Array:
		a := types.MakeArray(v.Len())
		for i := range v.Len() {
			value, ok := readBack(must.NotFail(v.Get(i)))
			if !ok {
				return nil, false
			}
			a.Append(value)
		}
		return a, true
	case string:
		return valid(v), true
	case types.Regex:
		return types.Regex{Pattern: valid(v.Pattern), Options: valid(v.Options)}, true
	case types.Binary:
		if v.B == nil {
			return types.Null, true
		}
	}
	return v, true
}

// sameValue compares decoded values exactly: keys in order, doubles by their bits, dates
// by their milliseconds (Unmarshal gives them in the local zone).
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case *types.Document:
		b, ok := b.(*types.Document)
		if !ok || a.Len() != b.Len() {
			return false
		}
		bKeys, bValues := b.Keys(), b.Values()
		for i, key := range a.Keys() {
			if key != bKeys[i] || !sameValue(a.Values()[i], bValues[i]) {
				return false
			}
		}
		return true
	case *types.Array:
		b, ok := b.(*types.Array)
		if !ok || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(must.NotFail(a.Get(i)), must.NotFail(b.Get(i))) {
				return false
			}
		}
		return true
	case float64:
		b, ok := b.(float64)
		return ok && math.Float64bits(a) == math.Float64bits(b)
	case time.Time:
		b, ok := b.(time.Time)
		return ok && a.UnixMilli() == b.UnixMilli()
	case types.Binary:
		b, ok := b.(types.Binary)
		return ok && a.Subtype == b.Subtype && bytes.Equal(a.B, b.B)
	}
	return a == b
}

// TestGftsSchemaMatchesUpstream: on random documents (nested, every stored type, binary
// subtypes, regex options, empty objects and arrays, maps keyed by unique ids, keys and
// options of any bytes), appendDocSchema writes upstream's schema text byte for byte and
// Marshal upstream's document, and parseSchema decodes each text into exactly what
// upstream's decoder yields. parseSchema must take every text without an escape (so the
// comparison is not vacuous) and no other.
func TestGftsSchemaMatchesUpstream(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var parsed, escaped int
	for i := range 8000 {
		var doc *types.Document
		switch i % 8 {
		case 0, 1, 2:
			doc = randomDocumentOf(rng, 3, false)
		case 3, 4:
			doc = randomDocumentOf(rng, 3, true)
		case 5:
			doc = must.NotFail(types.NewDocument("_id", randomID(rng), "m", randomIDMap(rng, 2, i%16 == 5)))
		case 6:
			doc = progressDocument(rng)
		default:
			doc = gamerTaskDocument(rng)
		}

		text, err := marshalSchemaForDoc(doc)
		if err != nil {
			t.Fatalf("case %d: upstream: %v", i, err)
		}

		fast, ok := appendDocSchema([]byte("prefix"), doc)
		if !ok || !bytes.Equal(fast, append([]byte("prefix"), text...)) {
			t.Fatalf("case %d: schema text\n%s\nupstream\n%s", i, fast, text)
		}

		checkMarshal(t, fmt.Sprintf("case %d", i), doc)

		upstream, err := decodeSchemaUpstream(text)
		if err != nil {
			t.Fatalf("case %d: upstream decoder: %s: %v", i, text, err)
		}

		sch, _, ok := parseSchema(text)
		if ok != !bytes.Contains(text, []byte(`\`)) {
			t.Fatalf("case %d: parseSchema took it: %v: %s", i, ok, text)
		}
		if !ok {
			escaped++
			continue
		}
		parsed++

		if !reflect.DeepEqual(sch, upstream) {
			t.Fatalf("case %d: %s:\nparsed   %s\nupstream %s", i, text, dumpSchema(sch), dumpSchema(upstream))
		}

		if got, err := decodeSchema(text); err != nil || !reflect.DeepEqual(got, upstream) {
			t.Fatalf("case %d: decodeSchema: %v", i, err)
		}
	}

	t.Logf("%d parsed, %d escaped", parsed, escaped)
	if parsed < 4000 || escaped < 1000 {
		t.Fatalf("the cases did not exercise both paths: %d parsed, %d escaped", parsed, escaped)
	}
}

// dumpSchema shows a decoded schema with its pointers followed (and nil and empty told apart).
func dumpSchema(v any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprintf("%s %#v", b, v)
}

// TestGftsSchemaMutated: schema texts edited at random (bytes deleted, inserted, replaced;
// members renamed, repeated, reordered, nulled; subtypes out of range; whitespace; trailing
// text) are either parsed into what upstream's decoder yields, or left to it; never taken
// when upstream refuses them. decodeSchema gives upstream's result or upstream's error.
func TestGftsSchemaMutated(t *testing.T) {
	rng := rand.New(rand.NewSource(4))

	replaceOne := func(b []byte, old, new string) []byte {
		n := bytes.Count(b, []byte(old))
		if n == 0 {
			return b
		}
		at := 0
		for k := rng.Intn(n); ; k-- {
			at += bytes.Index(b[at:], []byte(old))
			if k == 0 {
				break
			}
			at += len(old)
		}
		return append(append(append([]byte{}, b[:at]...), new...), b[at+len(old):]...)
	}
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	chars := []byte(" \t\n\"\\{}[],:0159-.+eEtTpPsSioOkKnul$x\x00\xff")
	typeNames := []string{"object", "array", "double", "string", "binData", "objectId", "bool", "date", "null", "regex", "int", "timestamp", "long", "Int", "decimal", ""}

	mutations := []func([]byte) []byte{
		func(b []byte) []byte { i := rng.Intn(len(b)); return append(append([]byte{}, b[:i]...), b[i+1:]...) },
		func(b []byte) []byte {
			i := rng.Intn(len(b) + 1)
			return append(append(append([]byte{}, b[:i]...), chars[rng.Intn(len(chars))]), b[i:]...)
		},
		func(b []byte) []byte {
			b = append([]byte{}, b...)
			b[rng.Intn(len(b))] = chars[rng.Intn(len(chars))]
			return b
		},
		// another type, with or without the member it calls for
		func(b []byte) []byte {
			return replaceOne(b, `"t":"`+pick(typeNames...)+`"`, `"t":"`+pick(typeNames...)+`"`)
		},
		// members renamed: unknown, or known to upstream only case-insensitively
		func(b []byte) []byte {
			return replaceOne(b, pick(`"t":`, `"p":`, `"$k":`, `"$s":`, `"i":`, `"s":`, `"o":`),
				pick(`"T":`, `"P":`, `"$K":`, `"$S":`, `"I":`, `"x":`, `"t":`, `"p":`, `"$k":`, `"$s":`, `"i":`, `"s":`, `"o":`))
		},
		// a member given twice, or one its type does not call for
		func(b []byte) []byte {
			return replaceOne(b, pick(`{"t":`, `{"p":{`, `"$k":[`, `,"$k"`, `{"t":"string"`, `{"t":"int"`),
				pick(`{"t":"long","t":`, `{"p":{"a":{"t":"int"},"a":{"t":"long"},`, `{"p":{"a":{"t":"int"},`, `"$k":["a",`,
					`,"$k":["z"],"$k"`, `{"t":"string","o":"i"`, `{"t":"int","s":4`, `{"t":"int","$s":{}`, `{"t":"int","i":[]`,
					`{"p":null,"p":{`, `{"$k":[],"p":{`, `{"t":"object","$s":{}`))
		},
		// subtypes: in and out of a byte, not integers, not numbers
		func(b []byte) []byte {
			return replaceOne(b, `"s":`+pick("0", "1", "4", "5", "128"),
				`"s":`+pick("0", "3", "255", "256", "01", "-1", "1.0", "1e1", "00", `"4"`, "null", " 4", "4 ", "99999999999999999999"))
		},
		// nulls where sjson writes values
		func(b []byte) []byte {
			return replaceOne(b, pick(`{"t":"int"}`, `{}`, `["`, `"imsx"`, `"o":"`), pick(`null`, `[null]`, `{}`, `[]`, `"o":null,"o":"`))
		},
		// members reordered
		func(b []byte) []byte {
			b = replaceOne(b, `"t":"binData","s":`, `"s":`)
			return replaceOne(b, `},"$k":[`, `},"$k":[],"$k":[`)
		},
		// whitespace, trailing text, escapes
		func(b []byte) []byte {
			switch rng.Intn(4) {
			case 0:
				return replaceOne(b, pick(":", ",", "{", "[", "]", "}"), pick(": ", ", ", "\n{", "[\t", " ]", "}\r"))
			case 1:
				return append(append([]byte{}, b...), pick(" ", "x", "{}", "\n")...)
			case 2:
				return replaceOne(b, pick(`"a"`, `"t"`, `"int"`, `"_id"`), pick(`"\u0061"`, `"\t"`, `"in\u0074"`, `"_\u0069d"`))
			default:
				return append([]byte(pick(" ", "\ufeff", "[")), b...)
			}
		},
	}

	var accepted, fallback int
	for i := range 30000 {
		var doc *types.Document
		switch i % 4 {
		case 0:
			doc = progressDocument(rng)
		case 1:
			doc = must.NotFail(types.NewDocument("a", randomIDMap(rng, 1, false), "r", types.Regex{Pattern: "x", Options: "imsx"}))
		default:
			doc = randomDocumentOf(rng, 2, false)
		}

		text, err := marshalSchemaForDoc(doc)
		if err != nil {
			t.Fatal(err)
		}
		original := text
		for range 1 + rng.Intn(2) {
			text = mutations[rng.Intn(len(mutations))](text)
		}

		upstream, upstreamErr := decodeSchemaUpstream(text)

		if sch, _, ok := parseSchema(text); ok {
			if !bytes.Equal(text, original) {
				accepted++
			}
			if upstreamErr != nil {
				t.Fatalf("case %d: took %s, which upstream refuses: %v", i, text, upstreamErr)
			}
			if !reflect.DeepEqual(sch, upstream) {
				t.Fatalf("case %d: %s:\nparsed   %s\nupstream %s", i, text, dumpSchema(sch), dumpSchema(upstream))
			}
		} else {
			fallback++
		}

		got, err := decodeSchema(text)
		if (err == nil) != (upstreamErr == nil) || (err != nil && err.Error() != upstreamErr.Error()) {
			t.Fatalf("case %d: %s: decodeSchema error %v, upstream %v", i, text, err, upstreamErr)
		}
		if !reflect.DeepEqual(got, upstream) {
			t.Fatalf("case %d: %s: decodeSchema %s, upstream %s", i, text, dumpSchema(got), dumpSchema(upstream))
		}
	}

	t.Logf("%d accepted, %d fell back", accepted, fallback)
	if accepted < 1000 || fallback < 10000 {
		t.Fatalf("the cases did not exercise both paths: %d accepted, %d fell back", accepted, fallback)
	}
}

// TestGftsSchemaCases: texts on either side of what parseSchema takes, each compared with
// upstream's decoder.
func TestGftsSchemaCases(t *testing.T) {
	for _, c := range []struct {
		text string
		fast bool
	}{
		{`{}`, true},
		{`{"p":{"a":{"t":"int"}},"$k":["a"]}`, true},
		{`{"p":{"a":{"t":"array","i":[]}},"$k":["a"]}`, true},
		{`{"p":{"a":{"t":"object","$s":{}}},"$k":["a"]}`, true},
		{`{"p":{"a":{"t":"binData","s":0},"b":{"t":"binData","s":255}},"$k":["a","b"]}`, true},
		{`{"p":{"a":{"t":"regex","o":""}},"$k":["a"]}`, true},
		{`{"p":{"a":{"t":"int"}},"$k":["a","a","b"]}`, true}, // upstream does not check $k against p either
		{`{"p":{"a":{"t":"int"},"a":{"t":"long"}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"int"}},"$k":[]}`, false},
		{`{"p":{},"$k":["a"]}`, false},
		{`{"$k":["a"],"p":{"a":{"t":"int"}}}`, false},
		{`{"p":{"a":{"t":"binData","s":256}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"binData","s":-1}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"binData","s":1.0}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"binData","s":01}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"binData"}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"object"}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"array","i":null}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"array","i":[null]}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"int","x":1}},"$k":["a"]}`, false},
		{`{"p":{"a":{"T":"int"}},"$k":["a"]}`, false},
		{`{"P":{"a":{"t":"int"}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"int","t":"long"}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"decimal"}},"$k":["a"]}`, false},
		{`{"p":{"a":{"t":"in\u0074"}},"$k":["a"]}`, false},
		{`{"p":{"\u0061":{"t":"int"}},"$k":["a"]}`, false},
		{"{\"p\":{\"\xff\":{\"t\":\"int\"}},\"$k\":[\"\xff\"]}", false},
		{`{"p":{"a":{"t":"int"}},"$k":["a"]} `, false},
		{`{"p":{"a":{"t":"int"}}, "$k":["a"]}`, false},
		{`{"p":{"a":{"t":"int"}},"$k":["a"]}{}`, false},
		{`{"p":{"a":{"t":"int"}},"$k":["a"],}`, false},
		{`null`, false},
		{``, false},
	} {
		upstream, upstreamErr := decodeSchemaUpstream([]byte(c.text))
		sch, _, ok := parseSchema([]byte(c.text))
		if ok != c.fast {
			t.Errorf("%s: parseSchema took it: %v", c.text, ok)
			continue
		}
		if ok && (upstreamErr != nil || !reflect.DeepEqual(sch, upstream)) {
			t.Errorf("%s:\nparsed   %s\nupstream %s (%v)", c.text, dumpSchema(sch), dumpSchema(upstream), upstreamErr)
		}
	}
}

// TestGftsSchemaDeep: deeply nested documents and arrays, within parseSchema's depth and
// beyond it (then upstream's decoder decodes them), written as upstream writes them and
// read back.
func TestGftsSchemaDeep(t *testing.T) {
	for _, depth := range []int{100, 300, 800} {
		var v any = int32(1)
		for i := range depth {
			if i%2 == 0 {
				v = must.NotFail(types.NewDocument("a", v, "b", "x"))
			} else {
				v = must.NotFail(types.NewArray(v, true))
			}
		}
		doc := must.NotFail(types.NewDocument("d", v))

		text := must.NotFail(marshalSchemaForDoc(doc))
		if fast, ok := appendDocSchema(nil, doc); !ok || !bytes.Equal(fast, text) {
			t.Fatalf("depth %d: schema text differs", depth)
		}

		data := checkMarshal(t, fmt.Sprintf("depth %d", depth), doc)
		if got, err := Unmarshal(data); err != nil || !sameValue(got, doc) {
			t.Fatalf("depth %d: read back (%v) not the same", depth, err)
		}

		upstream, err := decodeSchemaUpstream(text)
		if err != nil {
			t.Fatalf("depth %d: upstream: %v", depth, err)
		}
		sch, _, ok := parseSchema(text)
		if ok != (depth < 800) || (ok && !reflect.DeepEqual(sch, upstream)) {
			t.Fatalf("depth %d: parsed %v, or not as upstream", depth, ok)
		}
		if got, err := decodeSchema(text); err != nil || !reflect.DeepEqual(got, upstream) {
			t.Fatalf("depth %d: decodeSchema: %v", depth, err)
		}
	}
}

// TestGftsSchemaNoAlias: a parsed schema keeps nothing of the text it was given (the
// stored document's buffer is reused).
func TestGftsSchemaNoAlias(t *testing.T) {
	text := []byte(`{"p":{"ab":{"t":"regex","o":"im"}},"$k":["ab"]}`)
	sch, _, ok := parseSchema(text)
	if !ok {
		t.Fatal("not parsed")
	}
	for i := range text {
		text[i] = 'x'
	}
	if sch.Keys[0] != "ab" || *sch.Properties["ab"].Options != "im" {
		t.Fatalf("the schema changed with its text: %s", dumpSchema(sch))
	}
}

// benchShapes are the documents the benchmarks decode and encode: the tasks service's
// gamer tasks (one shape, so one schema text) and its progress documents (each its own
// shape; more of them than the schema cache holds).
func benchShapes() []struct {
	name string
	docs []*types.Document
} {
	rng := rand.New(rand.NewSource(5))
	tasks := make([]*types.Document, 1000)
	for i := range tasks {
		tasks[i] = gamerTaskDocument(rng)
	}
	progress := make([]*types.Document, 2*schemaCacheMaxEntries)
	for i := range progress {
		progress[i] = progressDocument(rng)
	}

	return []struct {
		name string
		docs []*types.Document
	}{{"task", tasks}, {"progress", progress}}
}

// BenchmarkGftsSchemaDecode: decoding a schema text, by upstream's decoder, by parseSchema,
// and as Unmarshal does it (decodeSchema: the cache, then parseSchema). MiB-kept is the
// heap still held after the run (the cache's).
func BenchmarkGftsSchemaDecode(b *testing.B) {
	for _, shape := range benchShapes() {
		texts := make([][]byte, len(shape.docs))
		for i, doc := range shape.docs {
			texts[i] = must.NotFail(marshalSchemaForDoc(doc))
		}

		for _, decoder := range []struct {
			name   string
			decode func([]byte) (*schema, error)
		}{
			{"upstream", decodeSchemaUpstream},
			{"fast", func(text []byte) (*schema, error) { sch, _, _ := parseSchema(text); return sch, nil }},
			{"cached", decodeSchema},
		} {
			b.Run(shape.name+"/"+decoder.name, func(b *testing.B) {
				// what the cache holds at the end, from empty
				schemaCache.Lock()
				schemaCache.m, schemaCache.bytes = map[string]*schema{}, 0
				schemaCache.Unlock()
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)

				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					if _, err := decoder.decode(texts[i%len(texts)]); err != nil {
						b.Fatal(err)
					}
				}

				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "MiB-kept")
			})
		}
	}
}

// BenchmarkGftsSchemaEncode: writing a document's schema text, by upstream's
// marshalSchemaForDoc and by appendDocSchema (into a buffer used again, as Marshal does).
func BenchmarkGftsSchemaEncode(b *testing.B) {
	for _, shape := range benchShapes() {
		b.Run(shape.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				must.NotFail(marshalSchemaForDoc(shape.docs[i%len(shape.docs)]))
			}
		})
		b.Run(shape.name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for i := 0; b.Loop(); i++ {
				buf, _ = appendDocSchema(buf[:0], shape.docs[i%len(shape.docs)])
			}
		})
	}
}

// BenchmarkGftsUnmarshal and BenchmarkGftsMarshal: whole documents, as the store reads and
// writes them.
func BenchmarkGftsUnmarshal(b *testing.B) {
	for _, shape := range benchShapes() {
		texts := make([][]byte, len(shape.docs))
		for i, doc := range shape.docs {
			texts[i] = must.NotFail(Marshal(doc))
		}

		b.Run(shape.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				must.NotFail(Unmarshal(texts[i%len(texts)]))
			}
		})
	}
}

func BenchmarkGftsMarshal(b *testing.B) {
	for _, shape := range benchShapes() {
		b.Run(shape.name+"/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				must.NotFail(upstreamMarshal(shape.docs[i%len(shape.docs)]))
			}
		})
		b.Run(shape.name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				must.NotFail(Marshal(shape.docs[i%len(shape.docs)]))
			}
		})
	}
}
