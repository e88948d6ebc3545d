// Added to FerretDB v1.24's SQLite backend by the Gamer Friendship and Task Service's build
// (scripts/provision.sh); not part of upstream FerretDB. Apache 2.0, like the code around it.
//
// Upstream pushes down only a filter that is exactly {_id: <string or ObjectID>}: every
// other query reads the whole table and filters in Go, so the indexes the application
// creates are never used for reads. This file turns top-level equality ($eq, plain value)
// and $in on strings and ObjectIDs into SQL over the same expressions the indexes are built
// on (`_ferretdb_sjson->"field"`), so SQLite can seek an index.
//
// The SQL is a pre-filter: the handler still applies the whole filter in Go to every row
// returned, so the SQL may return more rows than match, never fewer. The one way an
// equality on JSON text could return fewer is a document whose field is an array holding
// the value (MongoDB matches it; its JSON text is the whole array). So each pushed-down
// field other than _id (which is never an array) is also allowed to be any array, and the
// condition is written as a UNION ALL of branches, one per choice of "equal" or "array"
// per field: each branch is a pure conjunction an index can serve, and the branches are
// disjoint, so no row comes twice.

package sqlite

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

const (
	// maxArrayFields bounds the branches to 2^maxArrayFields; further fields stay in Go.
	maxArrayFields = 4
	// maxInValues bounds an $in list pushed down (larger lists stay in Go).
	maxInValues = 1000
)

// pushedField is one top-level field compared with one or more values.
type pushedField struct {
	expr   string
	values []string
	isID   bool
}

// pushdownFields returns the fields of filter that can be pushed down, _id first.
func pushdownFields(filter *types.Document) []pushedField {
	if filter == nil {
		return nil
	}

	var fields []pushedField
	arrayFields := 0

	for _, key := range filter.Keys() {
		if key == "" || strings.HasPrefix(key, "$") || strings.Contains(key, ".") {
			continue
		}

		values := pushableValues(must.NotFail(filter.Get(key)))
		if values == nil {
			continue
		}

		f := pushedField{expr: fmt.Sprintf("%s->%q", metadata.DefaultColumn, key), values: values, isID: key == "_id"}
		if f.isID {
			fields = append([]pushedField{f}, fields...)
			continue
		}

		if arrayFields == maxArrayFields {
			continue
		}

		arrayFields++
		fields = append(fields, f)
	}

	return fields
}

// pushableValues returns the JSON texts a field must equal, or nil when it cannot be pushed.
func pushableValues(v any) []string {
	if doc, ok := v.(*types.Document); ok {
		// {$eq: v} or {$in: [...]}; other operators beside them stay in Go.
		if eq, err := doc.Get("$eq"); err == nil {
			return pushableValues(eq)
		}

		in, err := doc.Get("$in")
		if err != nil {
			return nil
		}

		arr, ok := in.(*types.Array)
		if !ok || arr.Len() == 0 || arr.Len() > maxInValues {
			return nil
		}

		values := make([]string, 0, arr.Len())
		for i := 0; i < arr.Len(); i++ {
			text, ok := scalarText(must.NotFail(arr.Get(i)))
			if !ok {
				return nil
			}
			values = append(values, text)
		}

		return values
	}

	if text, ok := scalarText(v); ok {
		return []string{text}
	}

	return nil
}

// scalarText is the JSON text SQLite returns for a stored string or ObjectID. Only strings
// whose encoding has no escapes are used, so the text cannot differ by escape style.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		if !plainString(v) {
			return "", false
		}
	case types.ObjectID:
	default:
		return "", false
	}

	return string(must.NotFail(sjson.MarshalSingleValue(v))), true
}

func plainString(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}

	for _, r := range s {
		switch {
		case r < 0x20, r == '"', r == '\\', r == '<', r == '>', r == '&', r == 0x2028, r == 0x2029:
			return false
		}
	}

	return true
}

// pushdownQuery returns the query selecting with selectClause the rows that may match
// filter, its arguments, and whether anything was pushed down.
func pushdownQuery(selectClause string, filter *types.Document) (string, []any, bool) {
	fields := pushdownFields(filter)
	if len(fields) == 0 {
		return selectClause, nil, false
	}

	var arrayable []int

	for i, f := range fields {
		if !f.isID {
			arrayable = append(arrayable, i)
		}
	}

	branches := make([]string, 0, 1<<len(arrayable))
	var args []any

	for mask := 0; mask < 1<<len(arrayable); mask++ {
		conds := make([]string, 0, len(fields))

		for i, f := range fields {
			asArray := false

			for bit, idx := range arrayable {
				if idx == i && mask&(1<<bit) != 0 {
					asArray = true
				}
			}

			if asArray {
				// The JSON text of an array starts with '[' (the next character is '\').
				conds = append(conds, fmt.Sprintf(`%[1]s > '[' AND %[1]s < '\'`, f.expr))
				continue
			}

			if len(f.values) == 1 {
				conds = append(conds, f.expr+" = ?")
			} else {
				conds = append(conds, f.expr+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(f.values)), ", ")+")")
			}

			for _, v := range f.values {
				args = append(args, v)
			}
		}

		branches = append(branches, selectClause+" WHERE "+strings.Join(conds, " AND "))
	}

	return strings.Join(branches, " UNION ALL "), args, true
}
