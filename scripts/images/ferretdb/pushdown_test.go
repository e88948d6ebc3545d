// Copied into the build's FerretDB as internal/backends/sqlite/gfts_pushdown_test.go and run
// before FerretDB is built (scripts/provision.sh): the SQL pushdownQuery keeps per shape,
// with the arguments pushdownArgs lists, must be exactly what building it for each query
// gives (the placeholders' order is written twice: conjunction, and pushdownArgs).

package sqlite

import (
	"reflect"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// gftsBuilt is what pushdownQuery answered before it kept SQL by shape: every branch
// built, the arguments as each conjunction appends them.
func gftsBuilt(selectClause string, filter *types.Document, tableName string, indexes []metadata.IndexInfo) (string, []any) {
	fields := pushdownFields(filter)
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

func TestGftsPushdownSQLBounded(t *testing.T) {
	c := &sqlByShape{max: 2, m: map[string]string{}}
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
}
