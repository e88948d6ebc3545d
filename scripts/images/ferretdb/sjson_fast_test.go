// Added to FerretDB v1.24's sjson package by the Gamer Friendship and Task Service's build
// (scripts/provision.sh runs it before building the image); not part of upstream FerretDB.
// Apache 2.0, like the code around it.

package sjson

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/internal/types"
)

// randomValue returns a random value of a type sjson stores, nested up to depth.
func randomValue(rng *rand.Rand, depth int) any {
	kinds := 9
	if depth > 0 {
		kinds = 11
	}

	switch rng.Intn(kinds) {
	case 0:
		return randomString(rng)
	case 1:
		return int32(rng.Int63n(1<<32) - 1<<31)
	case 2:
		return rng.Int63() - 1<<62
	case 3:
		return rng.NormFloat64() * 1e6
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
		return types.Binary{Subtype: types.BinaryGeneric, B: b}
	case 9:
		return randomDocument(rng, depth-1)
	default:
		n := rng.Intn(6)
		if rng.Intn(4) == 0 {
			n = 100
		}
		a := types.MakeArray(n)
		for range n {
			a.Append(randomValue(rng, depth-1))
		}
		return a
	}
}

// randomString mixes plain ids with the characters a JSON string must escape.
func randomString(rng *rand.Rand) string {
	pieces := []string{"a", "gamer-1", "1b4e28ba-2fa1-11d2-883f-0016d3cca427", `"`, `\`, "\n", "\t", "\x00", "é", "🎮", "\u2028", "{", "}", "[", "]", ",", ":", " "}
	var b strings.Builder
	for range rng.Intn(8) {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

func randomDocument(rng *rand.Rand, depth int) *types.Document {
	d, _ := types.NewDocument()
	// no '"' or '\\' in keys: upstream's Marshal writes keys unescaped, so those cannot round-trip
	keys := []string{"_id", "a", "b", "friendIds", "progress", "state", "$k", "p", "t", "é", ""}
	for range rng.Intn(8) {
		d.Set(keys[rng.Intn(len(keys))], randomValue(rng, depth))
	}
	return d
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
