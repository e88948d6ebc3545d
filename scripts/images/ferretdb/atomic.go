// gfts: serializes read-modify-write per collection, so that a conditional update, a
// findAndModify, an upsert or a delete is atomic against every other one on the same
// collection, as single-document writes are on MongoDB. Upstream FerretDB v1 reads the
// matching documents, changes them in Go and writes them back by _id, so two concurrent
// writers could both pass the same filter. See scripts/images/ferretdb/README.md.

package handler

import (
	"errors"
	"sync"

	"github.com/FerretDB/wire/wirebson"
	"go.mongodb.org/mongo-driver/mongo"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
)

// collectionLocks holds one mutex per "<database>.<collection>". It lives in the process:
// the guarantee needs exactly one FerretDB process per database.
var collectionLocks sync.Map

// lockCollection takes the collection's write lock and returns its release.
func lockCollection(db, collection string) func() {
	mu, _ := collectionLocks.LoadOrStore(db+"."+collection, new(sync.Mutex))
	m := mu.(*sync.Mutex)
	m.Lock()

	return m.Unlock
}

// updateStatementError is the write error of the update statement at index i, in the
// shape MongoDB reports it, or nil when err is not an error of that one statement (the
// whole command then fails, as upstream).
func updateStatementError(db, collection string, i int, err error) *types.Document {
	err = handleUpdateError(db, collection, "update", err)

	var ce *handlererrors.CommandError
	if errors.As(err, &ce) {
		return WriteErrorDocument(&mongo.WriteError{Index: i, Code: int(ce.Code()), Message: ce.Err().Error()})
	}

	var we *handlererrors.WriteErrors
	if !errors.As(err, &we) || we.Len() == 0 {
		return nil
	}

	errs, _ := we.Document().Get("writeErrors").(*wirebson.Array)
	if errs == nil || errs.Len() == 0 {
		return nil
	}

	first, _ := errs.Get(0).(*wirebson.Document)
	if first == nil {
		return nil
	}

	code, _ := first.Get("code").(int32)
	msg, _ := first.Get("errmsg").(string)

	return WriteErrorDocument(&mongo.WriteError{Index: i, Code: int(code), Message: msg})
}
