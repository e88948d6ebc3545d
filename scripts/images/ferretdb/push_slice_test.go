// Copied into the build's FerretDB as internal/handler/common/gfts_push_slice_test.go and
// run before FerretDB is built (scripts/provision.sh): $push with $each and $slice, and the
// modifiers it refuses.

package common

import (
	"context"
	"errors"
	"testing"

	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// gftsWrites is a collection that only counts what UpdateDocument writes.
type gftsWrites struct {
	backends.Collection
	writes int
}

func (c *gftsWrites) UpdateAll(_ context.Context, p *backends.UpdateAllParams) (*backends.UpdateAllResult, error) {
	c.writes += len(p.Docs)
	return &backends.UpdateAllResult{Updated: int32(len(p.Docs))}, nil
}

func (c *gftsWrites) InsertAll(_ context.Context, p *backends.InsertAllParams) (*backends.InsertAllResult, error) {
	c.writes += len(p.Docs)
	return new(backends.InsertAllResult), nil
}

func gftsPush(modifiers ...any) *types.Document {
	return must.NotFail(types.NewDocument("$push", must.NotFail(types.NewDocument("recent", must.NotFail(types.NewDocument(modifiers...))))))
}

func gftsList(values ...any) *types.Document {
	return must.NotFail(types.NewDocument("_id", "f", "recent", must.NotFail(types.NewArray(values...))))
}

// gftsUpdate runs update on doc (none: an upsert) as one statement of an update command.
func gftsUpdate(t *testing.T, doc, update *types.Document) (*UpdateResult, int, error) {
	t.Helper()

	c := new(gftsWrites)
	docs := []*types.Document{}
	if doc != nil {
		docs = append(docs, doc)
	}

	u := &Update{Filter: must.NotFail(types.NewDocument("_id", "f")), Update: update, Upsert: doc == nil, HasUpdateOperators: true}
	res, err := UpdateDocument(context.Background(), c, "update", iterator.Values(iterator.ForSlice(docs)), u)

	return res, c.writes, err
}

// $position and $sort would change which elements $slice keeps; upstream ignored them and
// wrote the wrong list ([9] pushed at 0 of [1..5], sliced to 5: [1,2,3,4,5] instead of
// MongoDB's [9,1,2,3,4]). They are refused as not implemented, nothing written.
func TestGftsPushRefusesPositionAndSort(t *testing.T) {
	for _, update := range []*types.Document{
		gftsPush("$each", must.NotFail(types.NewArray(int32(9))), "$position", int32(0), "$slice", int32(5)),
		gftsPush("$each", must.NotFail(types.NewArray(int32(9))), "$position", int32(0)),
		gftsPush("$each", must.NotFail(types.NewArray(int32(9))), "$sort", int32(-1), "$slice", int32(5)),
		gftsPush("$each", must.NotFail(types.NewArray(int32(9))), "$sort", int32(1)),
	} {
		for _, doc := range []*types.Document{gftsList(int32(1), int32(2), int32(3), int32(4), int32(5)), nil} {
			before := "upsert"
			if doc != nil {
				before = types.FormatAnyValue(doc)
			}

			_, writes, err := gftsUpdate(t, doc, update)
			if err == nil {
				t.Errorf("%s on %s: no error", types.FormatAnyValue(update), before)
				continue
			}

			var we *handlererrors.WriteErrors
			if !errors.As(err, &we) {
				t.Errorf("%s on %s: %v, want a write error", types.FormatAnyValue(update), before, err)
				continue
			}

			first := we.Document().Get("writeErrors").(*wirebson.Array).Get(0).(*wirebson.Document)
			if code := first.Get("code").(int32); code != int32(handlererrors.ErrNotImplemented) {
				t.Errorf("%s on %s: code %d, want %d", types.FormatAnyValue(update), before, code, handlererrors.ErrNotImplemented)
			}

			if writes != 0 {
				t.Errorf("%s on %s: %d documents written", types.FormatAnyValue(update), before, writes)
			}
		}
	}
}

// A $slice that keeps every element modifies nothing (MongoDB: modifiedCount 0); one that
// drops some does.
func TestGftsPushSliceCountsOnlyChanges(t *testing.T) {
	empty := must.NotFail(types.NewArray())

	for _, tc := range []struct {
		slice    int32
		modified int32
	}{{5, 0}, {-5, 0}, {6, 0}, {-9, 0}, {4, 1}, {-4, 1}, {0, 1}} {
		res, writes, err := gftsUpdate(t, gftsList(int32(1), int32(2), int32(3), int32(4), int32(5)), gftsPush("$each", empty, "$slice", tc.slice))
		if err != nil {
			t.Fatal(err)
		}

		if res.Modified.Count != tc.modified || writes != int(tc.modified) {
			t.Errorf("$slice %d of 5 elements: modified %d, written %d, want %d", tc.slice, res.Modified.Count, writes, tc.modified)
		}
	}
}
