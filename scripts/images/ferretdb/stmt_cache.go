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

// gftsStmtCacheMax bounds the idle statements a connection keeps; past it, one is finalized.
const gftsStmtCacheMax = 128

type gftsStmtCache struct {
	// idle statements, reset and unbound, by their SQL text
	idle map[string]uintptr
	// the SQL text of each statement that may go back to idle when finalized
	sqlOf map[uintptr]string
}

func (c *conn) prepareV2(zSQL *uintptr) (uintptr, error) {
	sql := libc.GoString(*zSQL)
	if pstmt, ok := c.gftsStmts.idle[sql]; ok {
		delete(c.gftsStmts.idle, sql)
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
		delete(c.gftsStmts.sqlOf, pstmt)
		c.finalizeUncached(pstmt)
		return err
	}
	sqlite3.Xsqlite3_clear_bindings(c.tls, pstmt)
	if _, taken := c.gftsStmts.idle[sql]; taken {
		// the same text ran twice at once on this connection: one copy is enough
		delete(c.gftsStmts.sqlOf, pstmt)
		return c.finalizeUncached(pstmt)
	}
	if len(c.gftsStmts.idle) >= gftsStmtCacheMax {
		for evicted, p := range c.gftsStmts.idle {
			delete(c.gftsStmts.idle, evicted)
			delete(c.gftsStmts.sqlOf, p)
			c.finalizeUncached(p)
			break
		}
	}
	c.gftsStmts.idle[sql] = pstmt
	return nil
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
		delete(c.gftsStmts.sqlOf, p)
		c.finalizeUncached(p)
	}
}
