// Added to FerretDB v1.24's SQLite backend by the Gamer Friendship and Task Service's build
// (scripts/provision.sh); not part of upstream FerretDB. Apache 2.0, like the code around it.
// Why and what: README.md beside this file.
//
// Upstream pushes down only a filter that is exactly {_id: <string or ObjectID>}: every
// other query reads the whole table and filters in Go, so the indexes the application
// creates are never used for reads. This file turns, for top-level fields:
//   - equality ($eq, plain value) and $in on strings and ObjectIDs, and
//   - ranges ($gt, $gte, $lt, $lte) with string bounds, or with date bounds
// into SQL over the expressions the indexes are built on, so SQLite can seek an index, and
// when a find sorts only by fields so constrained, it returns the rows in the sort's order
// so the handler can stop reading after the limit instead of sorting everything.
//
// The SQL is a pre-filter: the handler still applies the whole filter in Go to every row
// returned, so the SQL may return more rows than match, never fewer. The one way a
// condition on an indexed expression could return fewer is a document whose field is an
// array holding a matching value (MongoDB matches it). So each pushed-down field other than
// _id (never an array) may also be "any array", and the condition is a UNION ALL of
// branches, one per choice of "scalar condition" or "array" per field: each branch is a
// conjunction an index can serve, and the branches are disjoint (json_type tells arrays
// apart), so no row comes twice.
//
// Expressions: unique indexes are built on `->` (JSON text: "1" and 1 differ, as their
// uniqueness must), other indexes on `->>` (the SQL value: strings in their own byte order,
// as MongoDB sorts them; JSON text would sort "ab c" before "ab"). Conditions name both,
// so either kind of index can serve them.

package sqlite

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

const (
	// maxArrayFields bounds the branches to 2^maxArrayFields; further fields stay in Go.
	maxArrayFields = 4
	// maxInValues bounds an $in list pushed down (larger lists stay in Go).
	maxInValues = 1000
)

// pushableKey: plain top-level names only, so they need no quoting in SQL or JSON paths.
var pushableKey = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// pushedField is one top-level field constrained by equality or by a string range.
type pushedField struct {
	key  string
	isID bool

	// equality: the JSON texts (for `->`) and, when every value is a string, the strings
	// themselves (for `->>`)
	jsonValues []string
	textValues []string

	// range (when jsonValues is nil): bounds for `->>`, both strings or both dates (as the
	// milliseconds since the epoch sjson stores a date as: a JSON number, so `->>` is an
	// SQL integer and compares by value)
	lower, upper         any
	lowerIncl, upperIncl bool
	dateRange            bool
}

func (f pushedField) isRange() bool { return f.jsonValues == nil }

func jsonExpr(key string) string { return fmt.Sprintf("%s->%q", metadata.DefaultColumn, key) }
func textExpr(key string) string { return fmt.Sprintf("%s->>%q", metadata.DefaultColumn, key) }
func typeExpr(key string) string {
	return fmt.Sprintf("json_type(%s, '$.%s')", metadata.DefaultColumn, key)
}

// pushdownFields returns the fields of filter that can be pushed down, _id first.
func pushdownFields(filter *types.Document) []pushedField {
	if filter == nil {
		return nil
	}

	var fields []pushedField
	arrayFields := 0

	for _, key := range filter.Keys() {
		if !pushableKey.MatchString(key) {
			continue
		}

		f, ok := pushField(key, must.NotFail(filter.Get(key)))
		if !ok {
			continue
		}

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

func pushField(key string, v any) (pushedField, bool) {
	f := pushedField{key: key, isID: key == "_id"}

	doc, isDoc := v.(*types.Document)
	if !isDoc {
		return f, f.setValues([]any{v})
	}

	// {$eq: v} or {$in: [...]} first; other operators beside them stay in Go.
	if eq, err := doc.Get("$eq"); err == nil {
		return f, f.setValues([]any{eq})
	}

	if in, err := doc.Get("$in"); err == nil {
		arr, ok := in.(*types.Array)
		if !ok || arr.Len() == 0 || arr.Len() > maxInValues {
			return f, false
		}

		values := make([]any, arr.Len())
		for i := range values {
			values[i] = must.NotFail(arr.Get(i))
		}

		return f, f.setValues(values)
	}

	// A range: string bounds, or date bounds (other types compare by other rules). The
	// first bound's type decides; bounds of the other type stay in Go.
	for _, op := range doc.Keys() {
		var bound any

		switch v := must.NotFail(doc.Get(op)).(type) {
		case string:
			if f.dateRange {
				continue
			}

			bound = v
		case time.Time:
			if (f.lower != nil || f.upper != nil) && !f.dateRange {
				continue
			}

			f.dateRange = true
			bound = v.UnixMilli()
		default:
			continue
		}

		switch op {
		case "$gt", "$gte":
			if f.lower == nil {
				f.lower, f.lowerIncl = bound, op == "$gte"
			}
		case "$lt", "$lte":
			if f.upper == nil {
				f.upper, f.upperIncl = bound, op == "$lte"
			}
		}
	}

	if f.lower == nil && f.upper == nil {
		f.dateRange = false
		return f, false
	}

	return f, true
}

// setValues records equality values; false when one of them cannot be pushed down.
func (f *pushedField) setValues(values []any) bool {
	allStrings := true

	for _, v := range values {
		switch v := v.(type) {
		case string:
			f.textValues = append(f.textValues, v)
		case types.ObjectID:
			allStrings = false
		default:
			return false
		}

		f.jsonValues = append(f.jsonValues, string(must.NotFail(sjson.MarshalSingleValue(v))))
	}

	if !allStrings {
		f.textValues = nil
	}

	return true
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// scalarConds is the condition on a field holding a scalar value. jsonOnly leaves out the
// `->>` form of equalities (see uniqueKeyCovered).
func (f pushedField) scalarConds(jsonOnly bool) ([]string, []any) {
	var conds []string
	var args []any

	if !f.isRange() {
		conds = append(conds, jsonExpr(f.key)+" IN ("+placeholders(len(f.jsonValues))+")")
		for _, v := range f.jsonValues {
			args = append(args, v)
		}

		if f.textValues != nil && !jsonOnly {
			conds = append(conds, textExpr(f.key)+" IN ("+placeholders(len(f.textValues))+")")
			for _, v := range f.textValues {
				args = append(args, v)
			}
		}

		return conds, args
	}

	if f.lower != nil {
		op := ">"
		if f.lowerIncl {
			op = ">="
		}

		conds = append(conds, textExpr(f.key)+" "+op+" ?")
		args = append(args, f.lower)
	}

	if f.upper != nil {
		op := "<"
		if f.upperIncl {
			op = "<="
		}

		conds = append(conds, textExpr(f.key)+" "+op+" ?")
		args = append(args, f.upper)
	}

	if !f.isID {
		// `->>` of an array is its JSON text, which may fall in the range: the array branch
		// has those rows.
		conds = append(conds, typeExpr(f.key)+" IS NOT 'array'")
	}

	return conds, args
}

// arrayConds is the condition on a field holding an array (its JSON text starts with '[',
// and the next character after '[' is '\').
func (f pushedField) arrayConds() []string {
	return []string{
		fmt.Sprintf(`%[1]s > '[' AND %[1]s < '\'`, jsonExpr(f.key)),
		fmt.Sprintf(`%[1]s > '[' AND %[1]s < '\'`, textExpr(f.key)),
		typeExpr(f.key) + " = 'array'",
	}
}

// branch is one conjunction: the fields whose bit is set in arrays are arrays.
func branch(selectClause string, fields []pushedField, arrays uint, jsonOnly bool) (string, []any) {
	conds := make([]string, 0, len(fields)+2)
	var args []any
	bit := uint(0)

	for _, f := range fields {
		asArray := false
		if !f.isID {
			asArray = arrays&(1<<bit) != 0
			bit++
		}

		if asArray {
			conds = append(conds, f.arrayConds()...)
			continue
		}

		c, a := f.scalarConds(jsonOnly)
		conds = append(conds, c...)
		args = append(args, a...)
	}

	return selectClause + " WHERE " + strings.Join(conds, " AND "), args
}

// uniqueKeyCovered tells whether the equalities cover every key of a unique index. Then
// that index finds at most one row per value, and the `->>` forms of the equalities are
// left out: without statistics SQLite would otherwise rate a non-unique `->>` index on a
// prefix of them (say applicationId alone) as cheaper than 100 seeks of the unique one,
// and read every document of the application.
func uniqueKeyCovered(fields []pushedField, indexes []metadata.IndexInfo) bool {
	eq := make(map[string]bool, len(fields))

	for _, f := range fields {
		if !f.isRange() {
			eq[f.key] = true
		}
	}

	for _, index := range indexes {
		if !index.Unique {
			continue
		}

		covered := len(index.Key) > 0

		for _, k := range index.Key {
			covered = covered && eq[k.Field]
		}

		if covered {
			return true
		}
	}

	return false
}

func arrayableCount(fields []pushedField) int {
	n := 0

	for _, f := range fields {
		if !f.isID {
			n++
		}
	}

	return n
}

// pushdownQuery returns the query selecting with selectClause the rows that may match
// filter, in no particular order, its arguments, and whether anything was pushed down.
func pushdownQuery(selectClause string, filter *types.Document, indexes []metadata.IndexInfo) (string, []any, bool) {
	fields := pushdownFields(filter)
	if len(fields) == 0 {
		return selectClause, nil, false
	}

	jsonOnly := uniqueKeyCovered(fields, indexes)

	var qs []string
	var args []any

	for mask := uint(0); mask < 1<<arrayableCount(fields); mask++ {
		q, a := branch(selectClause, fields, mask, jsonOnly)
		qs = append(qs, q)
		args = append(args, a...)
	}

	return strings.Join(qs, " UNION ALL "), args, true
}

// orderedPlan is how to return the rows of filter in the order of sort, when every sort
// key is a field the filter constrains to strings (then SQL's byte order of `->>` values is
// MongoDB's order). The rows of the scalar branch come out of an index in that order; the
// rows where some field is an array would not, so the caller first checks there are none
// (probe), and otherwise falls back to pushdownQuery and the handler's sort.
type orderedPlan struct {
	query     string
	args      []any
	probe     string // empty: no field can be an array (see arrayProbe)
	probeArgs []any
}

func orderedQuery(selectClause string, filter, sort *types.Document, indexes []metadata.IndexInfo) (*orderedPlan, bool) {
	if sort.Len() == 0 {
		return nil, false
	}

	fields := pushdownFields(filter)

	// A unique index finds the few rows; the handler sorts them (see uniqueKeyCovered).
	if uniqueKeyCovered(fields, indexes) {
		return nil, false
	}
	byKey := make(map[string]pushedField, len(fields))

	for _, f := range fields {
		byKey[f.key] = f
	}

	order := make([]string, 0, sort.Len())

	for _, key := range sort.Keys() {
		f, ok := byKey[key]
		if !ok || f.dateRange || (!f.isRange() && f.textValues == nil) {
			return nil, false
		}

		var dir int64

		switch v := must.NotFail(sort.Get(key)).(type) {
		case int64:
			dir = v
		case int32:
			dir = int64(v)
		case float64:
			dir = int64(v)
		}

		if dir != 1 && dir != -1 {
			return nil, false
		}

		expr := textExpr(key)
		if dir == -1 {
			expr += " DESC"
		}

		order = append(order, expr)
	}

	q, args := branch(selectClause, fields, 0, false)
	plan := &orderedPlan{query: q + " ORDER BY " + strings.Join(order, ", "), args: args}

	plan.probe, plan.probeArgs = arrayProbe(selectClause, fields)

	return plan, true
}

// arrayProbe asks, one field at a time, whether a row that might match holds an array in
// that field: the field's array condition with only the equality fields beside it, so each
// part is a seek on an index that starts with them (with the range fields as well, a probe
// for an array in a later index column would read the whole range). Extra rows only make
// the caller fall back to the handler's sort.
func arrayProbe(selectClause string, fields []pushedField) (string, []any) {
	var qs []string
	var args []any

	for i, f := range fields {
		if f.isID {
			continue
		}

		conds := f.arrayConds()

		for j, g := range fields {
			if j == i || g.isRange() {
				continue
			}

			c, a := g.scalarConds(false)
			conds = append(conds, c...)
			args = append(args, a...)
		}

		qs = append(qs, selectClause+" WHERE "+strings.Join(conds, " AND "))
	}

	return strings.Join(qs, " UNION ALL "), args
}

// hasRows tells whether q returns at least one row.
func hasRows(ctx context.Context, db *fsql.DB, q string, args []any) (bool, error) {
	rows, err := db.QueryContext(ctx, q+" LIMIT 1", args...)
	if err != nil {
		return false, err
	}

	defer rows.Close()

	found := rows.Next()

	return found, rows.Err()
}
