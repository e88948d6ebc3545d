// Added to FerretDB v1.24's types package by the Gamer Friendship and Task Service's build
// (scripts/provision.sh); not part of upstream FerretDB. Apache 2.0, like the code around it.
// Why: README.md beside this file ("Values written without encoding/json").

package types

// FieldAt returns the key and the value of the document's field at index i, 0 ≤ i < Len(): what
// Keys()[i] and Values()[i] return, without copying every key and value into new slices as
// those do. sjson's writers (gfts_sjson_schema.go, gfts_sjson_values.go) read every field of
// every document they write: Keys and Values were a fifth of Marshal's time, with the
// collection of their garbage.
func (d *Document) FieldAt(i int) (key string, value any) {
	f := &d.fields[i]

	return f.key, f.value
}
