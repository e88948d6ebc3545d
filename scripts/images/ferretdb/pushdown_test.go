// Copied into the build's FerretDB as internal/backends/sqlite/gfts_pushdown_test.go and run
// before FerretDB is built (scripts/provision.sh): the SQL pushdownQuery keeps per shape,
// with the arguments pushdownArgs lists, must be exactly what building it for each query
// gives (the placeholders' order is written twice: conjunction, and pushdownArgs).

package sqlite

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// gftsBuilt is what pushdownQuery answered before it kept SQL by shape: every branch
// built, the arguments as each conjunction appends them.
func gftsBuilt(selectClause string, filter *types.Document, tableName string, indexes []metadata.IndexInfo) (string, []any) {
	fields := withIDExpr(pushdownFields(filter), indexes)
	jsonOnly := uniqueKeyCovered(fields, indexes)
	t := table{name: tableName, indexes: indexes}

	var q string
	var args []any

	for mask := uint(0); mask < 1<<arrayableCount(fields); mask++ {
		branchQ, a := branch(selectClause, t, fields, mask, jsonOnly, nil)
		if q != "" {
			q += " UNION ALL "
		}

		q += branchQ
		args = append(args, a...)
	}

	return q, args
}

func gftsDoc(pairs ...any) *types.Document { return must.NotFail(types.NewDocument(pairs...)) }
func gftsIn(values ...any) *types.Document {
	return gftsDoc("$in", must.NotFail(types.NewArray(values...)))
}

func TestGftsPushdownQueryKeptByShape(t *testing.T) {
	key := func(fields ...string) []metadata.IndexKeyPair {
		pairs := make([]metadata.IndexKeyPair, len(fields))
		for i, f := range fields {
			pairs[i] = metadata.IndexKeyPair{Field: f}
		}

		return pairs
	}
	indexes := []metadata.IndexInfo{
		{Name: "_id_", Key: key("_id"), Unique: true},
		{Name: "pair", Key: key("applicationId", "pairKey"), Unique: true, NullKey: true},
		{Name: "in", Key: key("applicationId", "addressee", "status", "_id")},
		{Name: "out", Key: key("applicationId", "requester", "status", "_id")},
	}
	day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	oid := types.ObjectID{1, 2, 3}

	// each shape twice, with other values: the second answer comes from what the first kept
	filters := [][2]*types.Document{
		{gftsDoc("applicationId", "a1", "pairKey", "x:y"), gftsDoc("applicationId", "a2", "pairKey", "p:q")},
		{gftsDoc("_id", "r1", "applicationId", "a1", "status", "pending"), gftsDoc("_id", "r2", "applicationId", "a9", "status", "accepted")},
		{gftsDoc("applicationId", "a1", "requester", gftsIn("g1", "g2"), "status", "accepted"), gftsDoc("applicationId", "a3", "requester", gftsIn("h1", "h2"), "status", "pending")},
		{gftsDoc("applicationId", "a1", "addressee", gftsIn("g1", "g2", "g3"), "status", gftsDoc("$eq", "accepted")), gftsDoc("applicationId", "a1", "addressee", gftsIn("k1", "k2", "k3"), "status", gftsDoc("$eq", "pending"))},
		{gftsDoc("applicationId", "a1", "_id", gftsDoc("$gt", "m", "$lte", "z")), gftsDoc("applicationId", "a4", "_id", gftsDoc("$gt", "b", "$lte", "c"))},
		{gftsDoc("expiredAt", gftsDoc("$lte", day)), gftsDoc("expiredAt", gftsDoc("$lte", day.Add(time.Hour)))},
		{gftsDoc("applicationId", "a1", "ref", gftsIn(oid, "s")), gftsDoc("applicationId", "a5", "ref", gftsIn("t", oid))},
		{gftsDoc("a", "1", "b", "2", "c", "3", "d", "4", "e", "5"), gftsDoc("a", "6", "b", "7", "c", "8", "d", "9", "e", "0")},
	}

	for i, pair := range filters {
		for j, filter := range pair {
			wantQ, wantArgs := gftsBuilt("SELECT x FROM t", filter, "t", indexes)
			q, args, pushed := pushdownQuery("SELECT x FROM t", filter, "t", indexes)

			if !pushed {
				t.Fatalf("filter %d.%d: nothing pushed down", i, j)
			}

			if q != wantQ {
				t.Errorf("filter %d.%d: SQL\n%s\nwant\n%s", i, j, q, wantQ)
			}

			if !reflect.DeepEqual(args, wantArgs) {
				t.Errorf("filter %d.%d: args %v, want %v", i, j, args, wantArgs)
			}
		}
	}

	// filters that differ in one part of their shape only, each after the other: were that
	// part missing from the key, the second would get the first's SQL
	reversed := []metadata.IndexInfo{indexes[3], indexes[2], indexes[1], indexes[0]}
	flipped := []metadata.IndexInfo{indexes[0], {Name: "pair", Key: key("applicationId", "pairKey"), Unique: true}, indexes[2], indexes[3]}
	notUnique := []metadata.IndexInfo{indexes[0], {Name: "pair", Key: key("applicationId", "pairKey")}, indexes[2], indexes[3]}
	idColumn := []metadata.IndexInfo{{Name: "_id_", Key: key("_id"), Unique: true, IDColumn: true}, indexes[1], indexes[2], indexes[3]}
	for i, pair := range []struct {
		filters [2]*types.Document
		indexes [2][]metadata.IndexInfo
	}{
		{[2]*types.Document{gftsDoc("ref", gftsIn("s", "t")), gftsDoc("ref", gftsIn(oid, "t"))}, [2][]metadata.IndexInfo{indexes, indexes}},
		{[2]*types.Document{gftsDoc("name", gftsDoc("$gt", "m")), gftsDoc("name", gftsDoc("$gte", "m"))}, [2][]metadata.IndexInfo{indexes, indexes}},
		{[2]*types.Document{gftsDoc("name", gftsDoc("$lt", "m")), gftsDoc("name", gftsDoc("$lte", "m"))}, [2][]metadata.IndexInfo{indexes, indexes}},
		{[2]*types.Document{gftsDoc("name", gftsDoc("$gt", "m")), gftsDoc("name", gftsDoc("$lt", "m"))}, [2][]metadata.IndexInfo{indexes, indexes}},
		{[2]*types.Document{gftsDoc("applicationId", "a", "status", "s"), gftsDoc("status", "s", "applicationId", "a")}, [2][]metadata.IndexInfo{indexes, indexes}},
		{[2]*types.Document{gftsDoc("applicationId", "a", "pairKey", "k"), gftsDoc("applicationId", "a", "pairKey", "k")}, [2][]metadata.IndexInfo{indexes, flipped}},
		{[2]*types.Document{gftsDoc("applicationId", "a", "pairKey", "k"), gftsDoc("applicationId", "a", "pairKey", "k")}, [2][]metadata.IndexInfo{indexes, notUnique}},
		{[2]*types.Document{gftsDoc("applicationId", "a", "requester", "r"), gftsDoc("applicationId", "a", "requester", "r")}, [2][]metadata.IndexInfo{indexes, reversed}},
		{[2]*types.Document{gftsDoc("_id", "r", "applicationId", "a"), gftsDoc("_id", "r", "applicationId", "a")}, [2][]metadata.IndexInfo{indexes, idColumn}},
		{[2]*types.Document{gftsDoc("_id", gftsIn("r", "s"), "status", "x"), gftsDoc("_id", gftsIn("r", "s"), "status", "x")}, [2][]metadata.IndexInfo{idColumn, indexes}},
	} {
		for j := range pair.filters {
			wantQ, wantArgs := gftsBuilt("SELECT x FROM t", pair.filters[j], "t", pair.indexes[j])
			q, args, _ := pushdownQuery("SELECT x FROM t", pair.filters[j], "t", pair.indexes[j])

			if q != wantQ || !reflect.DeepEqual(args, wantArgs) {
				t.Errorf("one-part pair %d.%d: %s %v, want %s %v", i, j, q, args, wantQ, wantArgs)
			}
		}
	}

	// on a table with the _id column, _id's conditions name it
	if q, _, _ := pushdownQuery("SELECT x FROM t", gftsDoc("_id", gftsIn("r", "s")), "t", idColumn); !strings.Contains(q, metadata.IDKeyColumn+" IN (?, ?)") {
		t.Errorf("_id on a table with the column: %s", q)
	}

	// another table, other indexes or another $in length is another shape
	one := gftsDoc("applicationId", "a1", "requester", gftsIn("g1"), "status", "accepted")
	for _, tc := range []struct {
		table   string
		indexes []metadata.IndexInfo
	}{{"t", indexes}, {"u", indexes}, {"t", indexes[:3]}} {
		wantQ, wantArgs := gftsBuilt("SELECT x FROM "+tc.table, one, tc.table, tc.indexes)
		q, args, _ := pushdownQuery("SELECT x FROM "+tc.table, one, tc.table, tc.indexes)

		if q != wantQ || !reflect.DeepEqual(args, wantArgs) {
			t.Errorf("table %s, %d indexes: %s %v, want %s %v", tc.table, len(tc.indexes), q, args, wantQ, wantArgs)
		}
	}
}

// Each placeholder takes the argument its condition needs, written out by hand rather than
// by the code that builds both: the JSON text of a value for a `->` condition, the value
// itself for a `->>` one, the lower bound before the upper. A condition's arguments follow
// its expression, so the last expression before a `?` is the one it belongs to.
func TestGftsPushdownArgumentsMatchTheirConditions(t *testing.T) {
	indexes := []metadata.IndexInfo{{Name: "_id_", Key: []metadata.IndexKeyPair{{Field: "_id"}}, Unique: true}}

	for _, tc := range []struct {
		filter *types.Document
		args   []any
		exprs  string // per placeholder: 'j' a `->` condition, 't' a `->>` one
	}{
		// one field: its scalar branch (`->` IN, then `->>` IN), then its array branch (no arguments)
		{gftsDoc("applicationId", "a1"), []any{`"a1"`, "a1"}, "jt"},
		{gftsDoc("requester", gftsIn("g1", "g2")), []any{`"g1"`, `"g2"`, "g1", "g2"}, "jjtt"},
		// two fields: scalar-scalar, array-scalar, scalar-array, array-array
		{gftsDoc("a", "x", "b", "y"), []any{`"x"`, "x", `"y"`, "y", `"y"`, "y", `"x"`, "x"}, "jtjtjtjt"},
		{gftsDoc("_id", gftsDoc("$gt", "m", "$lte", "z")), []any{"m", "z"}, "tt"},
	} {
		q, args, _ := pushdownQuery("SELECT x FROM t", tc.filter, "t", indexes)
		if !reflect.DeepEqual(args, tc.args) {
			t.Errorf("%v: args %q, want %q", tc.filter, args, tc.args)
		}

		var kinds []byte
		last := byte(0)

		for i := 0; i < len(q); i++ {
			switch {
			case strings.HasPrefix(q[i:], `->>"`):
				last, i = 't', i+2
			case strings.HasPrefix(q[i:], `->"`):
				last, i = 'j', i+1
			case q[i] == '?':
				kinds = append(kinds, last)
			}
		}

		if string(kinds) != tc.exprs {
			t.Errorf("%v: placeholders on %s, want %s, in %s", tc.filter, kinds, tc.exprs, q)
		}
	}

	// the range's operators, in the order of their arguments
	q, _, _ := pushdownQuery("SELECT x FROM t", gftsDoc("_id", gftsDoc("$gt", "m", "$lte", "z")), "t", indexes)
	if gt, lte := strings.Index(q, "> ?"), strings.Index(q, "<= ?"); gt < 0 || lte < 0 || gt > lte {
		t.Errorf("the lower bound's condition does not come first: %s", q)
	}
}

func TestGftsPushdownSQLBounded(t *testing.T) {
	c := &sqlByShape{max: 2, maxBytes: 1 << 20, m: map[string]string{}}
	builds := 0
	build := func(q string) func() string { return func() string { builds++; return q } }

	if c.get("a", build("A")) != "A" || c.get("a", build("X")) != "A" || builds != 1 {
		t.Fatalf("a kept shape is built again (%d builds)", builds)
	}

	c.get("b", build("B"))
	c.get("c", build("C"))

	if len(c.m) > 2 {
		t.Fatalf("%d shapes kept, at most 2", len(c.m))
	}

	if c.get("c", build("Y")) != "C" {
		t.Fatal("the newest shape was dropped")
	}

	// and by bytes: a shape whose SQL would pass the budget empties the map first
	small := &sqlByShape{max: 100, maxBytes: 10, m: map[string]string{}}
	small.get("a", build("12345"))
	small.get("b", build("67890"))

	if small.bytes > 10 || len(small.m) != 1 {
		t.Fatalf("%d bytes in %d shapes kept, at most 10 bytes", small.bytes, len(small.m))
	}
}

// A field SQLite would take as a column when written `->"name"` (the rowid's names in any
// case, the table's own column) must never be pushed down: the SQL would compare the
// rowid or the whole document and the backend would return none of the documents that
// match, filtered or ordered.
func TestGftsPushdownLeavesColumnNamesToGo(t *testing.T) {
	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	must.NoError(err)

	b, err := NewBackend(&NewBackendParams{URI: testutil.TestSQLiteURI(t, ""), L: testutil.Logger(t), P: sp, BatchSize: 100})
	must.NoError(err)
	t.Cleanup(b.Close)

	db := must.NotFail(b.Database(testutil.DatabaseName(t)))
	must.NoError(db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "c"}))
	c := must.NotFail(db.Collection("c"))

	for _, key := range []string{"oid", "rowid", "_rowid_", "ROWID", "OID", "_ferretdb_sjson", "_FERRETDB_SJSON", "_ferretdb_record_id"} {
		id := "d" + key
		_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{gftsDoc("_id", id, "app", "a", key, "x")}})
		must.NoError(err)

		for j, q := range []*backends.QueryParams{
			{Filter: gftsDoc(key, "x")},
			{Filter: gftsDoc(key, gftsIn("x", "y"))},
			{Filter: gftsDoc(key, gftsDoc("$gte", "x"))},
			{Filter: gftsDoc("app", "a", key, "x")},
			{Filter: gftsDoc("app", "a"), OrderBy: gftsDoc(key, int64(1))},
		} {
			res, err := c.Query(ctx, q)
			must.NoError(err)

			docs := must.NotFail(iterator.ConsumeValues[struct{}, *types.Document](res.Iter))
			found := false

			for _, d := range docs {
				found = found || must.NotFail(d.Get("_id")) == id
			}

			if !found {
				t.Errorf("%s, query %d: %s not returned (%d documents)", key, j, id, len(docs))
			}

			if q.OrderBy != nil && res.Sorted && len(docs) > 1 {
				t.Errorf("%s, query %d: ordered in SQL", key, j)
			}
		}
	}
}
