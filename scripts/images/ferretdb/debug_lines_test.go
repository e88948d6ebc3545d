// Copied into the build's FerretDB source as internal/util/fsql/gfts_debug_lines_test.go and
// run before the binary is built (scripts/provision.sh). See README.md, "Debug lines built
// only when logged": the statement lines are skipped when debug is off, and must stay as
// they were when it is on.

package fsql

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"log/slog"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// childCounting is a handler that counts the child loggers made of it (slog's With).
type childCounting struct {
	slog.Handler
	children *int
}

func (h childCounting) WithAttrs(attrs []slog.Attr) slog.Handler {
	*h.children++
	return childCounting{Handler: h.Handler.WithAttrs(attrs), children: h.children}
}

func (h childCounting) WithGroup(name string) slog.Handler {
	return childCounting{Handler: h.Handler.WithGroup(name), children: h.children}
}

// statements runs one statement of each kind through a DB and a Tx logging at level, and
// answers what was logged and how many child loggers the statements made.
func statements(t *testing.T, level slog.Level) (string, int) {
	t.Helper()

	var out bytes.Buffer
	var children int
	l := slog.New(childCounting{Handler: slog.NewTextHandler(&out, &slog.HandlerOptions{Level: level}), children: &children})

	sqlDB, err := sql.Open("sqlite", "file:gfts-debug-lines?mode=memory")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })

	db := WrapDB(sqlDB, "gfts", l)
	ctx := context.Background()
	children = 0 // the DB's own named logger

	if _, err = db.ExecContext(ctx, "CREATE TABLE gfts_t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}

	rows, err := db.QueryContext(ctx, "SELECT v FROM gfts_t WHERE v > ?", 41)
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()

	var n int
	if err = db.QueryRowContext(ctx, "SELECT count(*) FROM gfts_t").Scan(&n); err != nil {
		t.Fatal(err)
	}

	err = db.InTransaction(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO gfts_t (v) VALUES (?)", 42); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, "SELECT v FROM gfts_t WHERE v = ?", 42)
		if err != nil {
			return err
		}
		rows.Close()
		return tx.QueryRowContext(ctx, "SELECT max(v) FROM gfts_t").Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}

	if n != 42 {
		t.Fatalf("max(v) = %d, want 42", n)
	}

	return out.String(), children
}

func TestGftsDebugLinesWhenDebug(t *testing.T) {
	out, _ := statements(t, slog.LevelDebug)

	for _, want := range []string{
		`msg=">>> CREATE TABLE gfts_t (v INTEGER)" name=gfts args=[]`,
		`msg="<<< CREATE TABLE gfts_t (v INTEGER)" name=gfts args=[] rows=0 time=`,
		`msg=">>> SELECT v FROM gfts_t WHERE v > ?" name=gfts args=[41]`,
		`msg="<<< SELECT v FROM gfts_t WHERE v > ?" name=gfts args=[41] time=`,
		`msg=">>> SELECT count(*) FROM gfts_t" name=gfts args=[]`,
		`msg="<<< SELECT count(*) FROM gfts_t" name=gfts args=[] time=`,
		`msg=">>> INSERT INTO gfts_t (v) VALUES (?)" name=gfts args=[42]`,
		`msg="<<< INSERT INTO gfts_t (v) VALUES (?)" name=gfts args=[42] rows=1 time=`,
		`msg=">>> SELECT v FROM gfts_t WHERE v = ?" name=gfts args=[42]`,
		`msg="<<< SELECT v FROM gfts_t WHERE v = ?" name=gfts args=[42] time=`,
		`msg=">>> SELECT max(v) FROM gfts_t" name=gfts args=[]`,
		`msg="<<< SELECT max(v) FROM gfts_t" name=gfts args=[] time=`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no line with %q in:\n%s", want, out)
		}
	}
}

// Nothing logged, and nothing built for it: upstream made two child loggers (each
// formatting the statement's arguments) and formatted the query twice per statement.
func TestGftsNoDebugLinesOtherwise(t *testing.T) {
	out, children := statements(t, slog.LevelInfo)
	if out != "" {
		t.Errorf("logged at info level:\n%s", out)
	}
	if children != 0 {
		t.Errorf("%d child loggers made for lines not logged", children)
	}
}

// A near-free statement through the DB at info level, where the debug lines cost the most
// relative to the statement: go test -run '^$' -bench Gfts ./internal/util/fsql/
func BenchmarkGftsStatementAtInfo(b *testing.B) {
	sqlDB, err := sql.Open("sqlite", "file:gfts-debug-lines-bench?mode=memory")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sqlDB.Close() })

	db := WrapDB(sqlDB, "gfts", slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})))
	ctx := context.Background()

	b.ReportAllocs()
	for b.Loop() {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT ?", 1).Scan(&n); err != nil {
			b.Fatal(err)
		}
	}
}
