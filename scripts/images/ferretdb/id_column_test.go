// Copied into the build's FerretDB as internal/backends/sqlite/gfts_id_column_test.go and run
// before FerretDB is built (scripts/provision.sh). A table created by this build keeps each
// document's _id in a column of its own, the _id_ index built on it (id-column.patch,
// metadata.IDExpr): the column must hold exactly what the old index expression read, every
// by-_id path must use it, an UPDATE of the document must not evaluate JSON for the index,
// and a table created by the build before (no such column) must keep working as it was.

package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

func gftsOpenBackend(t *testing.T, uri string) *backend {
	t.Helper()

	sp, err := state.NewProvider("")
	must.NoError(err)

	// the backend itself, not its contract wrapper: the test reads the registry
	r, err := metadata.NewRegistry(uri, 100, testutil.Logger(t), sp)
	must.NoError(err)

	return &backend{r: r}
}

// gftsIDs are _id values of each kind a client may send, strings with characters JSON escapes.
func gftsIDs() []any {
	return []any{
		"plain",
		`quote " backslash \ and <tag> & ü 😀`,
		types.ObjectID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		int32(7),
		int64(1) << 40,
		1.5,
		must.NotFail(types.NewDocument("a", int32(1), "b", "x")),
	}
}

// gftsFunctionOps counts the opcodes of q's program that call an SQL function (`->`, json_*).
func gftsFunctionOps(t *testing.T, ctx context.Context, db *fsql.DB, q string) int {
	t.Helper()

	rows, err := db.QueryContext(ctx, "EXPLAIN "+q, "{}", `"x"`)
	must.NoError(err)

	defer rows.Close()

	cols := must.NotFail(rows.Columns())
	n := 0

	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))

		for i := range vals {
			ptrs[i] = &vals[i]
		}

		must.NoError(rows.Scan(ptrs...))

		if op := fmt.Sprint(vals[1]); op == "Function" || op == "PureFunc" {
			n++
		}
	}

	must.NoError(rows.Err())

	return n
}

// gftsCheckByID runs each by-_id path of the backend on collection name; with table set (a
// table with the _id column), it first checks the column against the old index expression.
func gftsCheckByID(t *testing.T, ctx context.Context, db backends.Database, name string, sqlDB *fsql.DB, table string) {
	t.Helper()

	c := must.NotFail(db.Collection(name))
	ids := gftsIDs()

	for i, id := range ids {
		_, err := c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{gftsDoc("_id", id, "n", int32(i))}})
		must.NoError(err)
	}

	if table != "" {
		// the column holds what the index expression of the build before read, for every id
		var same, rows int
		q := fmt.Sprintf("SELECT count(*), sum(%s IS %s) FROM %q", metadata.IDKeyColumn, metadata.IDColumn, table)
		must.NoError(sqlDB.QueryRowContext(ctx, q).Scan(&rows, &same))

		if rows != len(ids) || same != rows {
			t.Errorf("%s: %d of %d rows have %s equal to their %s", name, same, rows, metadata.IDKeyColumn, metadata.IDColumn)
		}
	}

	_, err := c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{gftsDoc("_id", ids[1], "n", int32(99))}})
	if !backends.ErrorCodeIs(err, backends.ErrorCodeInsertDuplicateID) {
		t.Fatalf("%s: a second document with an _id: want a duplicate-key error, got %v", name, err)
	}

	for i, id := range ids {
		for _, filter := range []*types.Document{gftsDoc("_id", id), gftsDoc("_id", gftsIn(id, "absent")), gftsDoc("_id", id, "n", int32(i))} {
			res := must.NotFail(c.Query(ctx, &backends.QueryParams{Filter: filter}))
			docs := must.NotFail(iterator.ConsumeValues[struct{}, *types.Document](res.Iter))

			// The backend answers candidates, which the handler filters: a string or ObjectID
			// _id is pushed down (exactly its document), others are left to Go (all of them).
			found := 0

			for _, d := range docs {
				if must.NotFail(d.Get("n")) == int32(i) {
					found++
				}
			}

			switch id.(type) {
			case string, types.ObjectID:
				if len(docs) != 1 || found != 1 {
					t.Errorf("%s: _id %v, filter %v: %d documents, its own %d times", name, id, filter, len(docs), found)
				}
			default:
				if found != 1 {
					t.Errorf("%s: _id %v, filter %v: its own document %d times", name, id, filter, found)
				}
			}
		}

		updated := must.NotFail(c.UpdateAll(ctx, &backends.UpdateAllParams{Docs: []*types.Document{gftsDoc("_id", id, "n", int32(i+100))}}))
		if updated.Updated != 1 {
			t.Errorf("%s: _id %v: %d updated", name, id, updated.Updated)
		}
	}

	deleted := must.NotFail(c.DeleteAll(ctx, &backends.DeleteAllParams{IDs: ids[:3]}))
	if deleted.Deleted != 3 {
		t.Errorf("%s: %d deleted of 3", name, deleted.Deleted)
	}

	res := must.NotFail(c.Query(ctx, &backends.QueryParams{}))
	docs := must.NotFail(iterator.ConsumeValues[struct{}, *types.Document](res.Iter))

	if len(docs) != len(ids)-3 {
		t.Fatalf("%s: %d documents left, want %d", name, len(docs), len(ids)-3)
	}

	for _, d := range docs {
		if n := must.NotFail(d.Get("n")).(int32); n < 103 { //nolint:forcetypeassert // written above
			t.Errorf("%s: %v not updated (n %d)", name, must.NotFail(d.Get("_id")), n)
		}
	}
}

func TestGftsIDColumn(t *testing.T) {
	ctx := testutil.Ctx(t)
	uri := testutil.TestSQLiteURI(t, "")
	dbName := testutil.DatabaseName(t)

	b := gftsOpenBackend(t, uri)
	db := must.NotFail(b.Database(dbName))
	must.NoError(db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "new"}))

	sqlDB := b.r.DatabaseGetExisting(ctx, dbName)
	table := b.r.CollectionGet(ctx, dbName, "new").TableName

	var indexSQL string
	must.NoError(sqlDB.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE name = ?", table+"__id_").Scan(&indexSQL))

	if !strings.HasSuffix(indexSQL, "("+metadata.IDKeyColumn+")") {
		t.Fatalf("the _id_ index of a new table: %s", indexSQL)
	}

	gftsCheckByID(t, ctx, db, "new", sqlDB, table)

	// A unique index of the user's with an _id key is built on `->"_id"`, not on the column:
	// a query naming both its fields must still find the document (not read that index by
	// the column's condition, which SQLite refuses).
	must.NoError(db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "pairs"}))
	c := must.NotFail(db.Collection("pairs"))
	_, err := c.CreateIndexes(ctx, &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
		{Name: "id_x", Key: []backends.IndexKeyPair{{Field: "_id"}, {Field: "x"}}, Unique: true},
	}})
	must.NoError(err)

	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{gftsDoc("_id", "pair", "x", "t")}})
	must.NoError(err)

	res := must.NotFail(c.Query(ctx, &backends.QueryParams{Filter: gftsDoc("_id", "pair", "x", "t")}))
	if docs := must.NotFail(iterator.ConsumeValues[struct{}, *types.Document](res.Iter)); len(docs) != 1 {
		t.Errorf("by _id and x beside a unique (_id, x) index: %d documents", len(docs))
	}

	// and it seeks (an index it cannot seek with these conditions would be scanned whole)
	explained := must.NotFail(c.Explain(ctx, &backends.ExplainParams{Filter: gftsDoc("_id", "pair", "x", "t")}))
	plan := fmt.Sprint(must.NotFail(explained.QueryPlanner.Get("Plan")))

	if !strings.Contains(plan, "SEARCH") || strings.Contains(plan, "SCAN") {
		t.Errorf("by _id and x beside a unique (_id, x) index: %s", plan)
	}

	// A unique index on a field SQLite would read as a column when double-quoted (the rowid's
	// names, this backend's columns) indexes the field.
	must.NoError(db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "named"}))
	named := must.NotFail(db.Collection("named"))
	_, err = named.CreateIndexes(ctx, &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
		{Name: "by_rowid", Key: []backends.IndexKeyPair{{Field: "rowid"}}, Unique: true},
		{Name: "by_id_column", Key: []backends.IndexKeyPair{{Field: metadata.IDKeyColumn}}, Unique: true},
	}})
	must.NoError(err)

	for i, tc := range []struct {
		doc       *types.Document
		duplicate bool
	}{
		{gftsDoc("_id", int32(1), "rowid", "a", metadata.IDKeyColumn, "z"), false},
		{gftsDoc("_id", int32(2), "rowid", "a", metadata.IDKeyColumn, "y"), true},
		{gftsDoc("_id", int32(3), "rowid", "b", metadata.IDKeyColumn, "z"), true},
		{gftsDoc("_id", int32(4), "rowid", "b", metadata.IDKeyColumn, "y"), false},
	} {
		_, err = named.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{tc.doc}})
		if got := backends.ErrorCodeIs(err, backends.ErrorCodeInsertDuplicateID); got != tc.duplicate || (err != nil && !got) {
			t.Errorf("insert %d into unique indexes on rowid and %s: duplicate %v, want %v (%v)", i, metadata.IDKeyColumn, got, tc.duplicate, err)
		}
	}

	// A table as the build before created it: no id column, the _id_ index on IDColumn.
	const oldTable = "old_0000beef"
	// A table of this build whose _id_ index was never built (a crash right after the table):
	// the column, recorded with the table, and no index.
	const bareTable = "bare_0000beef"

	for _, q := range []string{
		fmt.Sprintf("CREATE TABLE %q (%[2]s TEXT NOT NULL CHECK(%[2]s != '')) STRICT", oldTable, metadata.DefaultColumn),
		fmt.Sprintf("CREATE UNIQUE INDEX %q ON %q (%s)", oldTable+"__id_", oldTable, metadata.IDColumn),
		`INSERT INTO "_ferretdb_collections" (name, table_name, settings) VALUES ('old', '` + oldTable + `', ` +
			`'{"uuid":"0e0e0e0e-0000-4000-8000-000000000000","indexes":[{"name":"_id_","key":[{"field":"_id","descending":false}],"unique":true,"gfts_null_key":true}],"cappedSize":0,"cappedDocuments":0}')`,
		fmt.Sprintf("CREATE TABLE %q (%[2]s TEXT NOT NULL CHECK(%[2]s != ''), %[3]s TEXT NOT NULL) STRICT", bareTable, metadata.DefaultColumn, metadata.IDKeyColumn),
		`INSERT INTO "_ferretdb_collections" (name, table_name, settings) VALUES ('bare', '` + bareTable + `', '{"gfts_id_column":true}')`,
	} {
		_, err := sqlDB.ExecContext(ctx, q)
		must.NoError(err)
	}

	b.Close()

	b = gftsOpenBackend(t, uri)
	t.Cleanup(b.Close)

	db = must.NotFail(b.Database(dbName))
	gftsCheckByID(t, ctx, db, "old", nil, "")

	sqlDB = b.r.DatabaseGetExisting(ctx, dbName)

	// the bare table takes inserts (its column filled) and finds, updates and deletes by _id
	// (unindexed, by the expression, until its _id_ index exists)
	bare := must.NotFail(db.Collection("bare"))
	for i, id := range gftsIDs() {
		_, err = bare.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{gftsDoc("_id", id, "n", int32(i))}})
		must.NoError(err)

		res := must.NotFail(bare.Query(ctx, &backends.QueryParams{Filter: gftsDoc("_id", id)}))
		found := 0

		for _, d := range must.NotFail(iterator.ConsumeValues[struct{}, *types.Document](res.Iter)) {
			if must.NotFail(d.Get("n")) == int32(i) {
				found++
			}
		}

		updated := must.NotFail(bare.UpdateAll(ctx, &backends.UpdateAllParams{Docs: []*types.Document{gftsDoc("_id", id, "n", int32(i+100))}}))
		deleted := must.NotFail(bare.DeleteAll(ctx, &backends.DeleteAllParams{IDs: []any{id}}))

		if found != 1 || updated.Updated != 1 || deleted.Deleted != 1 {
			t.Errorf("bare: _id %v: found %d, updated %d, deleted %d", id, found, updated.Updated, deleted.Deleted)
		}
	}

	// An UPDATE of the document: on the new table no function runs for the _id_ index (SQLite
	// leaves an index alone when no column it reads is set); the old table's parses the JSON.
	update := func(tbl string) string {
		meta := b.r.CollectionGet(ctx, dbName, map[string]string{table: "new", oldTable: "old"}[tbl])
		return fmt.Sprintf("UPDATE %q SET %s = ? WHERE %s = ?", tbl, metadata.DefaultColumn, metadata.IDExpr(meta.Settings.Indexes))
	}

	if n := gftsFunctionOps(t, ctx, sqlDB, update(table)); n != 0 {
		t.Errorf("an update on the new table calls %d functions", n)
	}

	if n := gftsFunctionOps(t, ctx, sqlDB, update(oldTable)); n == 0 {
		t.Errorf("an update on the old table calls no function: the check above cannot fail")
	}
}
