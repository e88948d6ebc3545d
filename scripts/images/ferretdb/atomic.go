// gfts: serializes every write per collection, so that a conditional update, a
// findAndModify, an upsert, a delete or an insert is atomic against every other one on the
// same collection, as single-document writes are on MongoDB (an insert too: one landing
// between an upsert's read and its insert failed the upsert with 11000). Upstream FerretDB v1 reads the
// matching documents, changes them in Go and writes them back by _id, so two concurrent
// writers could both pass the same filter. See scripts/images/ferretdb/README.md.

package handler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/FerretDB/wire/wirebson"
	"go.mongodb.org/mongo-driver/mongo"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
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

	// fetched holds documents read ahead for the deferred statements (see read), by _id
	// key; nil for an _id that was looked up and is absent.
	fetched map[string]*types.Document

	// uniqueFields holds the top-level fields of the collection's unique indexes (besides
	// _id), read once per command: a statement that changes none of them cannot make the
	// deferred write fail on a unique key, so its error could not belong to it.
	uniqueFields map[string]struct{}
}

func newDeferredWrites() *deferredWrites {
	return &deferredWrites{ids: map[string]struct{}{}, fetched: map[string]*types.Document{}}
}

// prefetchMax is how many documents one read-ahead asks for (the `_id` $in pushdown takes
// at most 1,000 values).
const prefetchMax = 500

// read returns the document a deferred statement may change: its _id's document, read
// together with those of the deferrable statements that follow it in one query (one
// `_id IN (...)` seek per batch instead of a query per statement: the query's preparation
// and iterator cost as much as its decoding), under the collection lock, so nothing else
// changes them meanwhile. Each document is handed out once; a statement that is not
// deferred may change any document, so it drops what was read ahead (forget).
func (d *deferredWrites) read(ctx context.Context, c backends.Collection, updates []common.Update, i int, key string) (types.DocumentsIterator, error) {
	if _, ok := d.fetched[key]; !ok {
		if err := d.readAhead(ctx, c, updates, i); err != nil {
			return nil, err
		}
	}

	doc := d.fetched[key]
	delete(d.fetched, key)

	docs := []*types.Document{}
	if doc != nil {
		docs = append(docs, doc)
	}

	return iterator.Values(iterator.ForSlice(docs)), nil
}

// readAhead reads the documents of statement i and of the deferrable statements after it.
func (d *deferredWrites) readAhead(ctx context.Context, c backends.Collection, updates []common.Update, i int) error {
	clear(d.fetched)

	ids := types.MakeArray(prefetchMax)
	keys := map[string]struct{}{}

	for j := i; j < len(updates) && ids.Len() < prefetchMax; j++ {
		key, ok := deferrableID(&updates[j])
		if !ok {
			if j == i {
				return lazyerrors.New("read ahead for a statement that is not deferrable")
			}

			continue
		}

		if _, dup := keys[key]; dup {
			continue
		}

		keys[key] = struct{}{}
		ids.Append(must.NotFail(updates[j].Filter.Get("_id")))
	}

	filter := must.NotFail(types.NewDocument("_id", must.NotFail(types.NewDocument("$in", ids))))

	res, err := c.Query(ctx, &backends.QueryParams{Filter: filter})
	if err != nil {
		return lazyerrors.Error(err)
	}

	defer res.Iter.Close()

	for key := range keys {
		d.fetched[key] = nil
	}

	for {
		_, doc, err := res.Iter.Next()
		if errors.Is(err, iterator.ErrIteratorDone) {
			return nil
		}

		if err != nil {
			return lazyerrors.Error(err)
		}

		id, _ := doc.Get("_id")
		key := fmt.Sprintf("%T:%v", id, id)

		// the pushdown is a pre-filter: keep exactly the asked-for _ids
		if _, asked := keys[key]; asked {
			d.fetched[key] = doc
		}
	}
}

// forget drops the documents read ahead (a statement that is not deferred is about to run).
func (d *deferredWrites) forget() {
	clear(d.fetched)
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

// safeFor tells whether the statement's change can be deferred: an update with operators
// whose fields (and $rename's targets) are in no unique index. (Replacements, and anything that could collide on a
// unique key, are written at once so that an E11000 is reported for their statement.)
func (d *deferredWrites) safeFor(ctx context.Context, c backends.Collection, u *common.Update) bool {
	if !u.HasUpdateOperators || u.Update == nil {
		return false
	}

	if d.uniqueFields == nil {
		d.uniqueFields = map[string]struct{}{}

		res, err := c.ListIndexes(ctx, new(backends.ListIndexesParams))
		if err != nil {
			d.uniqueFields = nil
			return false
		}

		for _, idx := range res.Indexes {
			if !idx.Unique {
				continue
			}

			for _, k := range idx.Key {
				if k.Field != "_id" {
					d.uniqueFields[strings.SplitN(k.Field, ".", 2)[0]] = struct{}{}
				}
			}
		}
	}

	for _, op := range u.Update.Keys() {
		fields, ok := must.NotFail(u.Update.Get(op)).(*types.Document)
		if !ok {
			return false
		}

		for _, field := range fields.Keys() {
			paths := []string{field}

			// $rename writes the field its value names: that one must be checked too
			if op == "$rename" {
				to, ok := must.NotFail(fields.Get(field)).(string)
				if !ok {
					return false
				}

				paths = append(paths, to)
			}

			for _, path := range paths {
				if _, unique := d.uniqueFields[strings.SplitN(path, ".", 2)[0]]; unique {
					return false
				}
			}
		}
	}

	return true
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
