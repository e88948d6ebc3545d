// Copied into the build's copy of modernc.org/sqlite beside stmt_cache.go and run before
// FerretDB is built (scripts/provision.sh, _gfts_stmt_cache): a statement given back must
// behave as a freshly prepared one.

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"
)

// gftsOpen opens a database on one connection, so that every statement runs on the same cache.
func gftsOpen(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	gftsExec(t, db, "CREATE TABLE t (x INTEGER PRIMARY KEY, s TEXT)")
	for i := 0; i < 100; i++ {
		gftsExec(t, db, "INSERT INTO t VALUES (?, ?)", i, fmt.Sprint("v", i))
	}
	return db
}

func gftsExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

// gftsConn runs f on the database's one driver connection.
func gftsConn(t *testing.T, db *sql.DB, f func(c *conn)) {
	t.Helper()
	raw, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := raw.Raw(func(dc any) error { f(dc.(*conn)); return nil }); err != nil {
		t.Fatal(err)
	}
}

func gftsIdle(t *testing.T, db *sql.DB, query string) uintptr {
	t.Helper()
	var p uintptr
	gftsConn(t, db, func(c *conn) { p = c.gftsStmts.idle[query] })
	return p
}

func TestGftsStmtCacheReusesWithNewArguments(t *testing.T) {
	db := gftsOpen(t)
	const query = "SELECT s FROM t WHERE x = ?"
	var first uintptr
	for i := 0; i < 100; i++ {
		var s string
		if err := db.QueryRow(query, i).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s != fmt.Sprint("v", i) {
			t.Fatalf("x = %d: got %q", i, s)
		}
		p := gftsIdle(t, db, query)
		if p == 0 {
			t.Fatal("the statement was not kept")
		}
		if i == 0 {
			first = p
		} else if p != first {
			t.Fatalf("run %d prepared the statement again", i)
		}
	}
	if gftsIdle(t, db, "INSERT INTO t VALUES (?, ?)") == 0 {
		t.Fatal("an Exec statement was not kept")
	}
}

func TestGftsStmtCacheStartsOverAfterRowsClosedEarly(t *testing.T) {
	db := gftsOpen(t)
	const query = "SELECT x FROM t ORDER BY x"
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal("no first row")
	}
	rows.Close()
	rows, err = db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var x int
		if err := rows.Scan(&x); err != nil {
			t.Fatal(err)
		}
		if x != n {
			t.Fatalf("row %d is %d", n, x)
		}
		n++
	}
	if n != 100 {
		t.Fatalf("%d rows, want 100", n)
	}
}

func TestGftsStmtCacheAnswersAStepErrorAndRecovers(t *testing.T) {
	db := gftsOpen(t)
	const insert = "INSERT INTO t VALUES (?, ?)"
	_, err := db.Exec(insert, 5, "again")
	if err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("want a UNIQUE constraint error, got %v", err)
	}
	if gftsIdle(t, db, insert) != 0 {
		t.Fatal("a statement whose step failed was kept")
	}
	gftsExec(t, db, insert, 100, "v100")
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 101 {
		t.Fatalf("count %d, err %v", n, err)
	}
}

func TestGftsStmtCacheFollowsASchemaChange(t *testing.T) {
	db := gftsOpen(t)
	const query = "SELECT * FROM t WHERE x = 1"
	columns := func() int {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		return len(cols)
	}
	if n := columns(); n != 2 {
		t.Fatalf("%d columns, want 2", n)
	}
	gftsExec(t, db, "ALTER TABLE t ADD COLUMN y TEXT")
	if n := columns(); n != 3 {
		t.Fatalf("%d columns after the change, want 3", n)
	}
}

func TestGftsStmtCacheRunsOneTextTwiceAtOnce(t *testing.T) {
	db := gftsOpen(t)
	const query = "SELECT x FROM t WHERE x >= ? ORDER BY x"
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	outer, err := tx.Query(query, 0)
	if err != nil {
		t.Fatal(err)
	}
	var x int
	outer.Next()
	outer.Scan(&x)
	if x != 0 {
		t.Fatalf("outer first %d", x)
	}
	var inner int
	if err := tx.QueryRow(query, 50).Scan(&inner); err != nil || inner != 50 {
		t.Fatalf("inner first %d, err %v", inner, err)
	}
	outer.Next()
	outer.Scan(&x)
	if x != 1 {
		t.Fatalf("outer second %d", x)
	}
	outer.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if gftsIdle(t, db, query) == 0 {
		t.Fatal("neither copy was kept")
	}
}

func TestGftsStmtCacheIsBoundedAndFinalizedOnClose(t *testing.T) {
	db := gftsOpen(t)
	for i := 0; i < 3*gftsStmtCacheMax; i++ {
		var n int
		if err := db.QueryRow(fmt.Sprintf("SELECT ? + %d", i), 1).Scan(&n); err != nil || n != i+1 {
			t.Fatalf("got %d, err %v", n, err)
		}
	}
	gftsConn(t, db, func(c *conn) {
		if len(c.gftsStmts.idle) != gftsStmtCacheMax || len(c.gftsStmts.sqlOf) != gftsStmtCacheMax {
			t.Fatalf("%d idle, %d known, want %d", len(c.gftsStmts.idle), len(c.gftsStmts.sqlOf), gftsStmtCacheMax)
		}
		// what closeV2 does before closing: afterwards the connection holds no statement
		c.gftsFinalizeIdle()
		if sqlite3.Xsqlite3_next_stmt(c.tls, c.db, 0) != 0 {
			t.Fatal("a statement is left unfinalized")
		}
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// gftsIn is a query over t with an IN list of n parameters (SQLite memory grows with n).
func gftsIn(n, variant int) (string, []any) {
	args := make([]any, n)
	for i := range args {
		args[i] = i
	}
	return fmt.Sprintf("SELECT count(*) + %d FROM t WHERE x IN (?%s)", variant, strings.Repeat(", ?", n-1)), args
}

// Statements that hold much of SQLite's memory (a long IN list: each length a text of its own)
// are not kept, and the idle ones of a connection hold at most gftsStmtCacheMaxBytes.
func TestGftsStmtCacheIsBoundedInMemory(t *testing.T) {
	db := gftsOpen(t)
	memory := func(p uintptr) (n int) {
		gftsConn(t, db, func(c *conn) {
			n = int(sqlite3.Xsqlite3_stmt_status(c.tls, p, sqlite3.SQLITE_STMTSTATUS_MEMUSED, 0))
		})
		return n
	}
	run := func(query string, args []any) {
		var n int
		if err := db.QueryRow(query, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}

	huge, args := gftsIn(3000, 0)
	run(huge, args)
	if p := gftsIdle(t, db, huge); p != 0 {
		t.Errorf("a statement holding %d bytes was kept", memory(p))
	}

	// each below gftsStmtMaxBytes, together many times gftsStmtCacheMaxBytes
	for i := 0; i < 100; i++ {
		query, args := gftsIn(300, i)
		run(query, args)
		if i == 0 {
			if p := gftsIdle(t, db, query); p == 0 || memory(p) > gftsStmtMaxBytes || 100*memory(p) < 4*gftsStmtCacheMaxBytes {
				t.Fatalf("the test's statement holds %d bytes, want a kept one of %d-%d", memory(p), 4*gftsStmtCacheMaxBytes/100, gftsStmtMaxBytes)
			}
		}
	}
	var total int
	gftsConn(t, db, func(c *conn) {
		for _, p := range c.gftsStmts.idle {
			total += int(sqlite3.Xsqlite3_stmt_status(c.tls, p, sqlite3.SQLITE_STMTSTATUS_MEMUSED, 0))
		}
	})
	if total > gftsStmtCacheMaxBytes {
		t.Errorf("the idle statements hold %d bytes, at most %d", total, gftsStmtCacheMaxBytes)
	}
	query, args := gftsIn(300, 99)
	if gftsIdle(t, db, query) == 0 {
		t.Error("the last statement was not kept")
	}
	run(query, args)
}
