// gfts: the $slice modifier of $push ({$push: {f: {$each: [...], $slice: n}}}), which
// upstream FerretDB v1 accepted and ignored, so a bounded list grew without bound.

package common

import (
	"fmt"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// pushSlice reads $slice from a $push document with $each: nil when absent. It refuses
// $position and $sort, which upstream ignored: the elements would land or be kept in the
// wrong order ($slice would then drop the wrong ones), so nothing is written instead.
func pushSlice(command string, pushDoc *types.Document) (*int64, error) {
	for _, m := range []string{"$position", "$sort"} {
		if pushDoc.Has(m) {
			return nil, NewUpdateError(handlererrors.ErrNotImplemented, fmt.Sprintf("$push's %s is not implemented", m), command)
		}
	}

	if !pushDoc.Has("$slice") {
		return nil, nil
	}

	var n int64

	switch v := must.NotFail(pushDoc.Get("$slice")).(type) {
	case int32:
		n = int64(v)
	case int64:
		n = v
	case float64:
		if v != float64(int64(v)) {
			return nil, NewUpdateError(handlererrors.ErrBadValue, "The value for $slice must be an integer value but was given type: double", command)
		}

		n = int64(v)
	default:
		return nil, NewUpdateError(handlererrors.ErrBadValue, "The value for $slice must be an integer value", command)
	}

	return &n, nil
}

// sliceArray keeps the first n elements (n >= 0) or the last -n (n < 0), as MongoDB does.
func sliceArray(array *types.Array, n int64) *types.Array {
	size := int64(array.Len())
	from, to := int64(0), size

	switch {
	case n >= 0 && n < size:
		to = n
	case n < 0 && -n < size:
		from = size + n
	}

	out := types.MakeArray(int(to - from))
	for i := from; i < to; i++ {
		out.Append(must.NotFail(array.Get(int(i))))
	}

	return out
}
