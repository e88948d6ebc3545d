// gfts: serializes read-modify-write per collection, so that a conditional update, a
// findAndModify, an upsert or a delete is atomic against every other one on the same
// collection, as single-document writes are on MongoDB. Upstream FerretDB v1 reads the
// matching documents, changes them in Go and writes them back by _id, so two concurrent
// writers could both pass the same filter. See scripts/images/ferretdb/README.md.

package handler

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/FerretDB/wire/wirebson"
	"go.mongodb.org/mongo-driver/mongo"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
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

// deferredWrites collects the documents an update command's statements change and writes
// them in one backend transaction, instead of one transaction (and WAL commit) per
// statement: most of a bulk update's cost on SQLite. Only statements that change at most
// the one document their filter names by _id are deferred, each _id at most once, so no
// statement of the command can read a document whose change is still pending; any other
// statement flushes first. The collection lock is held throughout, so no other writer sees
// the difference.
type deferredWrites struct {
	backends.Collection
	docs []*types.Document
	ids  map[string]struct{}
}

func newDeferredWrites() *deferredWrites {
	return &deferredWrites{ids: map[string]struct{}{}}
}

// UpdateAll implements backends.Collection by remembering the documents.
func (d *deferredWrites) UpdateAll(_ context.Context, params *backends.UpdateAllParams) (*backends.UpdateAllResult, error) {
	for _, doc := range params.Docs {
		id, _ := doc.Get("_id")
		d.ids[fmt.Sprintf("%T:%v", id, id)] = struct{}{}
	}

	d.docs = append(d.docs, params.Docs...)

	return &backends.UpdateAllResult{Updated: int32(len(params.Docs))}, nil
}

func (d *deferredWrites) has(id string) bool {
	_, ok := d.ids[id]
	return ok
}

// flush writes the pending documents in one transaction.
func (d *deferredWrites) flush(ctx context.Context) error {
	if len(d.docs) == 0 {
		return nil
	}

	docs := d.docs
	d.docs = nil
	clear(d.ids)

	_, err := d.Collection.UpdateAll(ctx, &backends.UpdateAllParams{Docs: docs})

	return err
}

// deferrableID is the key of the _id a statement's filter names, when the statement can
// change no other document (not multi, no upsert, _id equal to a string or ObjectID).
func deferrableID(u *common.Update) (string, bool) {
	if u.Multi || u.Upsert || u.Filter == nil {
		return "", false
	}

	id, err := u.Filter.Get("_id")
	if err != nil {
		return "", false
	}

	switch id.(type) {
	case string, types.ObjectID:
		return fmt.Sprintf("%T:%v", id, id), true
	default:
		return "", false
	}
}
