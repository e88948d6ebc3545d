// Copied into the build's copy of modernc.org/sqlite (scripts/provision.sh, _gfts_stmt_cache),
// which renames the driver's own prepareV2, finalize and closeV2 to *Uncached so that these
// wrap them. See scripts/images/ferretdb/README.md, "Prepared statements kept".
//
// The driver prepares every statement again on every execution and finalizes it after: a
// profile of the friendship store under add-friend had 48 % of its CPU in
// sqlite3_prepare_v2 (parsing and planning). A connection now keeps the statements it
// prepared, by their SQL text, and hands one back reset and unbound when the same text comes
// again. database/sql uses a connection from one goroutine at a time, so the cache needs no
// lock of its own; prepare_v2 statements prepare themselves again after a schema change.

package sqlite

import (
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

const (
	// gftsStmtCacheMax bounds the idle statements a connection keeps; past it, one is finalized.
	gftsStmtCacheMax = 128

	// A prepared statement holds SQLite memory in proportion to its program, not its text:
	// the services' statements hold 2–45 KB, a pushdown over four fields ~120 KB, one with a
	// long $in hundreds of KB (SQLite's own measure, SQLITE_STMTSTATUS_MEMUSED). Each length
	// of $in is a text of its own, so those rarely come again. A statement holding more than
	// gftsStmtMaxBytes is not kept, and a connection's idle statements hold at most
	// gftsStmtCacheMaxBytes (FerretDB keeps up to 100 connections open).
	gftsStmtMaxBytes      = 128 << 10
	gftsStmtCacheMaxBytes = 1 << 20
)

type gftsStmtCache struct {
	// idle statements, reset and unbound, by their SQL text
	idle map[string]uintptr
	// the SQL text of each statement that may go back to idle when finalized
	sqlOf map[uintptr]string
	// the memory each known statement holds (measured when it first goes back), and the
	// idle ones' total
	bytesOf   map[uintptr]int
	idleBytes int
}

func (c *conn) prepareV2(zSQL *uintptr) (uintptr, error) {
	sql := libc.GoString(*zSQL)
	if pstmt, ok := c.gftsStmts.idle[sql]; ok {
		delete(c.gftsStmts.idle, sql)
		c.gftsStmts.idleBytes -= c.gftsStmts.bytesOf[pstmt]
		*zSQL += uintptr(len(sql))
		return pstmt, nil
	}
	pstmt, err := c.prepareV2Uncached(zSQL)
	// only a text that is one whole statement (its tail empty) is cached
	if err != nil || pstmt == 0 || *(*byte)(unsafe.Pointer(*zSQL)) != 0 {
		return pstmt, err
	}
	if c.gftsStmts.sqlOf == nil {
		c.gftsStmts.sqlOf = make(map[uintptr]string)
		c.gftsStmts.idle = make(map[string]uintptr)
		c.gftsStmts.bytesOf = make(map[uintptr]int)
	}
	c.gftsStmts.sqlOf[pstmt] = sql
	return pstmt, nil
}

// finalize keeps a cached statement for its next use: reset (answering what finalize would:
// the error of its last step, if any) and with its parameters cleared.
func (c *conn) finalize(pstmt uintptr) error {
	sql, ok := c.gftsStmts.sqlOf[pstmt]
	if !ok {
		return c.finalizeUncached(pstmt)
	}
	if rc := sqlite3.Xsqlite3_reset(c.tls, pstmt); rc != sqlite3.SQLITE_OK {
		err := c.errstr(rc)
		c.gftsForget(pstmt)
		c.finalizeUncached(pstmt)
		return err
	}
	sqlite3.Xsqlite3_clear_bindings(c.tls, pstmt)
	bytes, measured := c.gftsStmts.bytesOf[pstmt]
	if !measured {
		bytes = int(sqlite3.Xsqlite3_stmt_status(c.tls, pstmt, sqlite3.SQLITE_STMTSTATUS_MEMUSED, 0))
		c.gftsStmts.bytesOf[pstmt] = bytes
	}
	// the same text ran twice at once on this connection (one copy is enough), or it is too large
	if _, taken := c.gftsStmts.idle[sql]; taken || bytes > gftsStmtMaxBytes {
		c.gftsForget(pstmt)
		return c.finalizeUncached(pstmt)
	}
	for evicted, p := range c.gftsStmts.idle {
		if len(c.gftsStmts.idle) < gftsStmtCacheMax && c.gftsStmts.idleBytes+bytes <= gftsStmtCacheMaxBytes {
			break
		}
		delete(c.gftsStmts.idle, evicted)
		c.gftsStmts.idleBytes -= c.gftsStmts.bytesOf[p]
		c.gftsForget(p)
		c.finalizeUncached(p)
	}
	c.gftsStmts.idle[sql] = pstmt
	c.gftsStmts.idleBytes += bytes
	return nil
}

// gftsForget drops what the cache knows of a statement that is about to be finalized.
func (c *conn) gftsForget(pstmt uintptr) {
	delete(c.gftsStmts.sqlOf, pstmt)
	delete(c.gftsStmts.bytesOf, pstmt)
}

// closeV2 finalizes the idle statements first: sqlite3_close_v2 would otherwise leave the
// connection open as a zombie until they are.
func (c *conn) closeV2(db uintptr) error {
	c.gftsFinalizeIdle()
	return c.closeV2Uncached(db)
}

func (c *conn) gftsFinalizeIdle() {
	for sql, p := range c.gftsStmts.idle {
		delete(c.gftsStmts.idle, sql)
		c.gftsForget(p)
		c.finalizeUncached(p)
	}
	c.gftsStmts.idleBytes = 0
}
