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
// so either kind of index can serve them. A unique index built by this build (NullKey) has
// `IFNULL(<->>, 'null')` for each field but _id, so that a missing field is keyed as null
// (metadata.UniqueKeyExpr); a conjunction that names such an index writes its `->` forms
// so, since SQLite serves a condition from an expression index only when it names the
// index's expression. (The value is the same: no pushed value or array is the text 'null'.)

package sqlite

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

const (
	// maxArrayFields bounds the branches to 2^maxArrayFields; further fields stay in Go.
	maxArrayFields = 4
	// maxInValues bounds an $in list pushed down (larger lists stay in Go).
	maxInValues = 1000
)

// plainKey: plain top-level names only, so they need no quoting in SQL or JSON paths.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// pushableKey tells whether key may be written `->"key"`. SQLite takes a double-quoted name
// for a column when the table has one so named, and only otherwise for a string: "oid",
// "rowid" and "_rowid_" (any case) are the rowid, "_ferretdb_sjson" the document, so their
// conditions would compare those and miss every match. Such fields stay in Go.
func pushableKey(key string) bool {
	if !plainKey.MatchString(key) {
		return false
	}

	switch k := strings.ToLower(key); {
	case k == "oid", k == "rowid", k == "_rowid_", strings.HasPrefix(k, "_ferretdb_"):
		return false
	}

	return true
}

// pushedField is one top-level field constrained by equality or by a string range.
type pushedField struct {
	key  string
	isID bool

	// idExpr is the SQL of _id in the table (metadata.IDExpr), set on the _id field by
	// withIDExpr: the column of tables created by this build, `->"_id"` before
	idExpr string

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

// keyExpr is the `->` form of key as the index a conjunction names is built on it: wrapped
// as metadata.UniqueKeyExpr when that is a NullKey unique index (_id never is wrapped).
func keyExpr(key string, nullKey bool) string {
	if nullKey && key != "_id" {
		return metadata.UniqueKeyExpr(jsonExpr(key))
	}

	return jsonExpr(key)
}

// keyExpr is the field's `->` form as its index is built on it (the package's keyExpr), or
// for _id the table's _id expression.
func (f pushedField) keyExpr(nullKey bool) string {
	if f.isID && f.idExpr != "" {
		return f.idExpr
	}

	return keyExpr(f.key, nullKey)
}

// withIDExpr sets the table's _id expression (metadata.IDExpr of indexes) on the _id field.
func withIDExpr(fields []pushedField, indexes []metadata.IndexInfo) []pushedField {
	for i := range fields {
		if fields[i].isID {
			fields[i].idExpr = metadata.IDExpr(indexes)
		}
	}

	return fields
}
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
		if !pushableKey(key) {
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
// `->>` form of equalities (see uniqueKeyCovered); nullKey: see keyExpr.
func (f pushedField) scalarConds(jsonOnly, nullKey bool) ([]string, []any) {
	var conds []string

	if !f.isRange() {
		conds = append(conds, f.keyExpr(nullKey)+" IN ("+placeholders(len(f.jsonValues))+")")

		if f.textValues != nil && !jsonOnly {
			conds = append(conds, textExpr(f.key)+" IN ("+placeholders(len(f.textValues))+")")
		}

		return conds, f.scalarArgs(nil, jsonOnly)
	}

	if f.lower != nil {
		op := ">"
		if f.lowerIncl {
			op = ">="
		}

		conds = append(conds, textExpr(f.key)+" "+op+" ?")
	}

	if f.upper != nil {
		op := "<"
		if f.upperIncl {
			op = "<="
		}

		conds = append(conds, textExpr(f.key)+" "+op+" ?")
	}

	if !f.isID {
		// `->>` of an array is its JSON text, which may fall in the range: the array branch
		// has those rows.
		conds = append(conds, typeExpr(f.key)+" IS NOT 'array'")
	}

	return conds, f.scalarArgs(nil, jsonOnly)
}

// scalarArgs appends to args the arguments of scalarConds, in the order of its placeholders:
// the one place that order is written (pushdownQuery's memoized SQL relies on it).
func (f pushedField) scalarArgs(args []any, jsonOnly bool) []any {
	if !f.isRange() {
		for _, v := range f.jsonValues {
			args = append(args, v)
		}

		if f.textValues != nil && !jsonOnly {
			for _, v := range f.textValues {
				args = append(args, v)
			}
		}

		return args
	}

	if f.lower != nil {
		args = append(args, f.lower)
	}

	if f.upper != nil {
		args = append(args, f.upper)
	}

	return args
}

// arrayConds is the condition on a field holding an array (its JSON text starts with '[',
// and the next character after '[' is '\'; 'null' is not between them); nullKey: see keyExpr.
func (f pushedField) arrayConds(nullKey bool) []string {
	return []string{
		fmt.Sprintf(`%[1]s > '[' AND %[1]s < '\'`, f.keyExpr(nullKey)),
		fmt.Sprintf(`%[1]s > '[' AND %[1]s < '\'`, textExpr(f.key)),
		typeExpr(f.key) + " = 'array'",
	}
}

// table is what a statement reads: its SQL table and the indexes built on it.
type table struct {
	name    string
	indexes []metadata.IndexInfo
}

// term is one field's part of a conjunction: its scalar condition ('s'), its array condition
// ('a'), or conditions written by the caller (custom, on `->>`, a range for the index).
type term struct {
	f      pushedField
	kind   byte
	custom []string
}

func (t term) conds(jsonOnly, nullKey bool) ([]string, []any) {
	switch {
	case t.custom != nil:
		return t.custom, nil
	case t.kind == 'a':
		return t.f.arrayConds(nullKey), nil
	default:
		return t.f.scalarConds(jsonOnly, nullKey)
	}
}

// seek tells whether an index column on the field can seek on the term, and how: as one
// or a few points ('e': equality, $in) or as a range ('r'); 0 when it cannot. Unique
// indexes are built on `->`, which only equalities and array conditions name (and not the
// `->>` forms jsonOnly leaves out); other indexes on `->>`.
func (t term) seek(unique, jsonOnly bool) byte {
	switch {
	case t.custom != nil:
		if unique {
			return 0
		}

		return 'r'
	case t.kind == 'a':
		return 'r'
	case !t.f.isRange():
		if !unique && (t.f.textValues == nil || jsonOnly) {
			return 0
		}

		return 'e'
	case unique:
		return 0
	default:
		return 'r'
	}
}

// indexHint names the index SQLite must read for a conjunction of terms: the one whose
// leading columns the terms pin to the most points, then a range on the next column, then
// the sort's keys following them. SQLite has no statistics here (FerretDB never runs
// ANALYZE), so left to itself it rates an equality on the first column of any index as
// selective: measured, {applicationId, requester: {$in: 100 ids}, status} read the unique
// (applicationId, pairKey) index over the whole application (110k entries, ~8 s) instead of
// 100 seeks of (applicationId, requester, status, _id). Nil when no index can seek.
func indexHint(t table, terms []term, jsonOnly bool, sortKeys []string) *metadata.IndexInfo {
	byKey := make(map[string]term, len(terms))
	for _, tm := range terms {
		byKey[tm.f.key] = tm
	}

	var best *metadata.IndexInfo
	bestScore := 0

	for i, index := range t.indexes {
		points, ranged := 0, 0

		for _, k := range index.Key {
			tm, ok := byKey[k.Field]
			if !ok {
				break
			}

			how := tm.seek(index.Unique, jsonOnly)
			// On a table with the _id column, _id's `->` condition names the column, which only
			// the _id_ index is built on: another unique index with an _id key (on `->"_id"`)
			// cannot seek on it.
			if tm.f.isID && tm.f.idExpr == metadata.IDKeyColumn && index.Unique && !index.IDColumn {
				how = 0
			}

			if how == 'e' {
				points++
				continue
			}

			if how == 'r' {
				ranged = 1
			}

			break
		}

		if points == 0 && ranged == 0 {
			continue
		}

		follows := 0
		if len(sortKeys) > 0 && points+len(sortKeys) <= len(index.Key) {
			follows = 1
			for i, k := range sortKeys {
				if index.Key[points+i].Field != k {
					follows = 0
				}
			}
		}

		if score := points*4 + ranged*2 + follows; score > bestScore {
			best, bestScore = &t.indexes[i], score
		}
	}

	return best
}

// conjunction is selectClause (which ends with its FROM) reading the index indexHint picks,
// where every term holds, written in that index's expressions (keyExpr).
func conjunction(selectClause string, t table, terms []term, jsonOnly bool, sortKeys []string) (string, []any) {
	conds := make([]string, 0, len(terms)+2)
	var args []any

	hint, nullKey := "", false
	if index := indexHint(t, terms, jsonOnly, sortKeys); index != nil {
		hint, nullKey = fmt.Sprintf(" INDEXED BY %q", t.name+"_"+index.Name), index.Unique && index.NullKey
	}

	for _, tm := range terms {
		c, a := tm.conds(jsonOnly, nullKey)
		conds = append(conds, c...)
		args = append(args, a...)
	}

	return selectClause + hint + " WHERE " + strings.Join(conds, " AND "), args
}

// branch is one conjunction: the fields whose bit is set in arrays are arrays.
func branch(selectClause string, t table, fields []pushedField, arrays uint, jsonOnly bool, sortKeys []string) (string, []any) {
	terms := make([]term, 0, len(fields))
	bit := uint(0)

	for _, f := range fields {
		kind := byte('s')
		if !f.isID {
			if arrays&(1<<bit) != 0 {
				kind = 'a'
			}
			bit++
		}

		terms = append(terms, term{f: f, kind: kind})
	}

	return conjunction(selectClause, t, terms, jsonOnly, sortKeys)
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
// filter, in no particular order, its arguments, and whether anything was pushed down. The
// SQL depends only on the shape of what is pushed (pushdownShape), so it is built once per
// shape and kept (pushdownSQL); the arguments are the filter's values (pushdownArgs).
func pushdownQuery(selectClause string, filter *types.Document, tableName string, indexes []metadata.IndexInfo) (string, []any, bool) {
	fields := withIDExpr(pushdownFields(filter), indexes)
	if len(fields) == 0 {
		return selectClause, nil, false
	}

	jsonOnly := uniqueKeyCovered(fields, indexes)

	return pushdownSQL.get(pushdownShape(selectClause, tableName, indexes, fields), func() string {
		return buildPushdownQuery(selectClause, tableName, indexes, fields, jsonOnly)
	}), pushdownArgs(fields, jsonOnly), true
}

// buildPushdownQuery is pushdownQuery's SQL: one conjunction per choice of "scalar" or
// "array" for each field but _id, joined by UNION ALL.
func buildPushdownQuery(selectClause, tableName string, indexes []metadata.IndexInfo, fields []pushedField, jsonOnly bool) string {
	t := table{name: tableName, indexes: indexes}

	var qs []string

	for mask := uint(0); mask < 1<<arrayableCount(fields); mask++ {
		q, _ := branch(selectClause, t, fields, mask, jsonOnly, nil)
		qs = append(qs, q)
	}

	return strings.Join(qs, " UNION ALL ")
}

// pushdownArgs are the arguments of buildPushdownQuery's SQL, in the order of its
// placeholders: branch by branch (the same masks), the scalar terms' arguments in field
// order (an array term has none), as conjunction writes them.
func pushdownArgs(fields []pushedField, jsonOnly bool) []any {
	var args []any

	for mask := uint(0); mask < 1<<arrayableCount(fields); mask++ {
		bit := uint(0)

		for _, f := range fields {
			if !f.isID {
				array := mask&(1<<bit) != 0
				bit++

				if array {
					continue
				}
			}

			args = f.scalarArgs(args, jsonOnly)
		}
	}

	return args
}

// pushdownShape is everything buildPushdownQuery's SQL depends on, as a map key: the select
// clause, the table, its indexes (names, keys, uniqueness, NullKey), and per pushed field its
// name, whether an equality or a range, how many values (an $in of 3 is another SQL than one
// of 4) and which bounds. Not the values: those are the arguments.
func pushdownShape(selectClause, tableName string, indexes []metadata.IndexInfo, fields []pushedField) string {
	var b strings.Builder

	flag := func(v bool) {
		if v {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}

	b.WriteString(selectClause)
	b.WriteByte(0)
	b.WriteString(tableName)

	for _, index := range indexes {
		b.WriteString("\x00i")
		b.WriteString(index.Name)
		flag(index.Unique)
		flag(index.NullKey)
		flag(index.IDColumn)

		for _, k := range index.Key {
			b.WriteByte(1)
			b.WriteString(k.Field)
			flag(k.Descending)
		}
	}

	for _, f := range fields {
		b.WriteString("\x00f")
		b.WriteString(f.key)
		b.WriteByte(1)
		flag(f.isID)
		b.WriteString(strconv.Itoa(len(f.jsonValues)))
		b.WriteByte(1)
		b.WriteString(strconv.Itoa(len(f.textValues)))
		b.WriteByte(1)
		flag(f.textValues != nil)
		flag(f.lower != nil)
		flag(f.upper != nil)
		flag(f.lowerIncl)
		flag(f.upperIncl)
		flag(f.dateRange)
	}

	return b.String()
}

// sqlByShape keeps built SQL by shape. Bounded by count and by bytes: when either is
// reached it starts again empty (the shapes a service issues are few, but every $in length
// is a shape of its own, and one of 1,000 values over four fields is ~200 KB of SQL), so
// memory stays bounded whatever the queries.
type sqlByShape struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	m        map[string]string
}

func (c *sqlByShape) get(shape string, build func() string) string {
	c.mu.Lock()
	q, ok := c.m[shape]
	c.mu.Unlock()

	if ok {
		return q
	}

	q = build()

	c.mu.Lock()
	if len(c.m) >= c.max || c.bytes+len(shape)+len(q) > c.maxBytes {
		c.m, c.bytes = make(map[string]string), 0
	}

	c.m[shape] = q
	c.bytes += len(shape) + len(q)
	c.mu.Unlock()

	return q
}

// pushdownSQL: building the SQL (up to 16 conjunctions, an index chosen for each, their
// expressions written with fmt) was 13.5 % of the store's CPU under the friendship
// service's add-friend commands (README.md, "Measured cost").
var pushdownSQL = &sqlByShape{max: 4096, maxBytes: 16 << 20, m: make(map[string]string)}

// orderedPlan is how to return the rows of filter in the order of sort, when every sort
// key is a field the filter constrains to strings (then SQL's byte order of `->>` values is
// MongoDB's order), or the last key is an ascending one it does not constrain (see
// stringKey). The rows of the scalar branch come out of an index in that order; the rows
// where some field is an array would not, so the caller first checks there are none
// (probe), and otherwise falls back to pushdownQuery and the handler's sort.
type orderedPlan struct {
	query     string
	args      []any
	probe     string // empty: no field can be an array (see arrayProbe)
	probeArgs []any

	// stringKey is the last sort key when the filter does not constrain it (a page by _id:
	// {applicationId, requester, status} sorted by _id). The read then orders by its `->>`
	// value from `''` up, which is every text, and the probe also asks for a row where it is
	// missing, null or a number (SQL sorts those first, MongoDB's bools and dates last).
	// Among texts, MongoDB sorts strings first, then objects, ObjectIDs, binary data and
	// regexes, which sjson also stores as JSON strings or text: the caller's iterator
	// (stringsFirst) returns the strings as they come and holds the others back to the end.
	// Every earlier sort key is pinned to one value, so that "the end" is right.
	stringKey string
}

func orderedQuery(selectClause string, filter, sort *types.Document, tableName string, indexes []metadata.IndexInfo) (*orderedPlan, bool) {
	if sort.Len() == 0 {
		return nil, false
	}

	fields := withIDExpr(pushdownFields(filter), indexes)

	// A unique index finds the few rows; the handler sorts them (see uniqueKeyCovered).
	if uniqueKeyCovered(fields, indexes) {
		return nil, false
	}
	byKey := make(map[string]pushedField, len(fields))

	for _, f := range fields {
		byKey[f.key] = f
	}

	order := make([]string, 0, sort.Len())
	var stringKey string

	for i, key := range sort.Keys() {
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

		f, ok := byKey[key]
		if !ok && i == sort.Len()-1 && dir == 1 && pushableKey(key) && pinned(byKey, sort.Keys()[:i]) &&
			(key == "_id" || arrayableCount(fields) < maxArrayFields) {
			f, ok = pushedField{key: key, isID: key == "_id", lower: "", lowerIncl: true}, true
			fields = append(fields, f)
			stringKey = key
		}

		if !ok || f.dateRange || (!f.isRange() && f.textValues == nil) {
			return nil, false
		}

		expr := textExpr(key)
		if dir == -1 {
			expr += " DESC"
		}

		order = append(order, expr)
	}

	t := table{name: tableName, indexes: indexes}
	q, args := branch(selectClause, t, fields, 0, false, sort.Keys())
	plan := &orderedPlan{query: q + " ORDER BY " + strings.Join(order, ", "), args: args, stringKey: stringKey}

	plan.probe, plan.probeArgs = arrayProbe(selectClause, t, fields)

	if stringKey != "" {
		q, a := nonTextProbe(selectClause, t, fields, stringKey)
		plan.probe, plan.probeArgs = joinUnion(plan.probe, q), append(plan.probeArgs, a...)
	}

	return plan, true
}

// pinned tells whether the filter constrains every one of keys to a single string.
func pinned(byKey map[string]pushedField, keys []string) bool {
	for _, k := range keys {
		f, ok := byKey[k]
		if !ok || f.isRange() || len(f.textValues) != 1 {
			return false
		}
	}

	return true
}

func joinUnion(a, b string) string {
	if a == "" {
		return b
	}

	return a + " UNION ALL " + b
}

// equalityTerms are the scalar conditions of the equality fields other than skip.
func equalityTerms(fields []pushedField, skip string) []term {
	var terms []term

	for _, g := range fields {
		if g.key != skip && !g.isRange() {
			terms = append(terms, term{f: g, kind: 's'})
		}
	}

	return terms
}

// arrayProbe asks, one field at a time, whether a row that might match holds an array in
// that field: the field's array condition with only the equality fields beside it, so each
// part is a seek on an index that starts with them (with the range fields as well, a probe
// for an array in a later index column would read the whole range). Extra rows only make
// the caller fall back to the handler's sort.
func arrayProbe(selectClause string, t table, fields []pushedField) (string, []any) {
	var qs []string
	var args []any

	for _, f := range fields {
		if f.isID {
			continue
		}

		q, a := conjunction(selectClause, t, append(equalityTerms(fields, f.key), term{f: f, kind: 'a'}), false, nil)
		qs = append(qs, q)
		args = append(args, a...)
	}

	return strings.Join(qs, " UNION ALL "), args
}

// nonTextProbe asks whether a row that might match has key missing, null or a number (SQL
// values below any text): two seeks on an index that has key after the equality fields.
func nonTextProbe(selectClause string, t table, fields []pushedField, key string) (string, []any) {
	var qs []string
	var args []any

	for _, cond := range []string{textExpr(key) + " IS NULL", textExpr(key) + " < ''"} {
		q, a := conjunction(selectClause, t, append(equalityTerms(fields, key), term{f: pushedField{key: key}, custom: []string{cond}}), false, nil)
		qs = append(qs, q)
		args = append(args, a...)
	}

	return strings.Join(qs, " UNION ALL "), args
}

// stringsFirst returns the documents of iter, read in the `->>` order of key, in MongoDB's
// order (see orderedPlan.stringKey): strings as they come, then the others, sorted.
func stringsFirst(iter types.DocumentsIterator, key string) types.DocumentsIterator {
	if key == "" {
		return iter
	}

	return &stringsFirstIterator{iter: iter, key: key}
}

type stringsFirstIterator struct {
	iter     types.DocumentsIterator
	key      string
	held     []*types.Document
	draining bool
}

func (it *stringsFirstIterator) value(doc *types.Document) any {
	if v, err := doc.Get(it.key); err == nil {
		return v
	}

	return types.Null
}

// Next implements iterator.Interface.
func (it *stringsFirstIterator) Next() (struct{}, *types.Document, error) {
	var unused struct{}

	for !it.draining {
		_, doc, err := it.iter.Next()
		if err != nil {
			if !errors.Is(err, iterator.ErrIteratorDone) {
				return unused, nil, err
			}

			it.draining = true
			sort.SliceStable(it.held, func(i, j int) bool {
				return types.CompareOrder(it.value(it.held[i]), it.value(it.held[j]), types.Ascending) == types.Less
			})

			break
		}

		if _, ok := it.value(doc).(string); ok {
			return unused, doc, nil
		}

		it.held = append(it.held, doc)
	}

	if len(it.held) == 0 {
		return unused, nil, iterator.ErrIteratorDone
	}

	doc := it.held[0]
	it.held = it.held[1:]

	return unused, doc, nil
}

// Close implements iterator.Interface.
func (it *stringsFirstIterator) Close() {
	it.iter.Close()
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
