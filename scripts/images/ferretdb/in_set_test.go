// Copied into the build's FerretDB as internal/handler/common/gfts_in_set_test.go and run
// before FerretDB is built (scripts/provision.sh): $in over a string field by a set.

package common

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

func gftsStrings(n int, prefix string) []any {
	values := make([]any, n)
	for i := range values {
		values[i] = fmt.Sprintf("%s%d", prefix, i)
	}

	return values
}

// A document with an operator in a $in list is refused, as MongoDB and upstream refuse it
// ("cannot nest $ under $in"), also when the field is a string and the list long enough
// for a set.
func TestGftsInSetRefusesNestedOperators(t *testing.T) {
	for _, n := range []int{2, 8, 20} {
		list := must.NotFail(types.NewArray(append(gftsStrings(n, "s"), must.NotFail(types.NewDocument("$gt", int32(1))))...))
		filter := must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("$in", list))))

		_, err := FilterDocument(must.NotFail(types.NewDocument("_id", "d", "f", "other")), filter)

		var ce *handlererrors.CommandError
		if !errors.As(err, &ce) || ce.Code() != handlererrors.ErrBadValue {
			t.Errorf("%d strings and {$gt: 1}: %v, want BadValue", n, err)
		}
	}
}

// The cache of sets holds at most inSetsMaxBytes of lists: several lists of a few MB each
// do not all stay, and a list larger than that gets no set but still matches.
func TestGftsInSetsBounded(t *testing.T) {
	reset := func() { inSetsMu.Lock(); clear(inSets); inSetsBytes = 0; inSetsMu.Unlock() }
	reset()
	t.Cleanup(reset)

	long := strings.Repeat("x", 400)
	held := func() int {
		inSetsMu.Lock()
		defer inSetsMu.Unlock()

		bytes := 0
		for arr := range inSets {
			for i := range arr.Len() {
				s, _ := must.NotFail(arr.Get(i)).(string)
				bytes += 64 + len(s)
			}
		}

		return bytes
	}

	for i := range 5 {
		arr := must.NotFail(types.NewArray(gftsStrings(20_000, fmt.Sprintf("%d%s", i, long))...)) // ~9 MB each
		if inStringSet(arr) == nil {
			t.Fatalf("list %d: no set", i)
		}

		if b := held(); b > 16<<20 {
			t.Fatalf("after list %d: %d bytes of lists cached", i, b)
		}
	}

	huge := must.NotFail(types.NewArray(gftsStrings(60_000, long)...)) // ~27 MB
	if inStringSet(huge) != nil {
		t.Error("a list larger than the cache got a set")
	}

	filter := must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("$in", huge))))
	for v, want := range map[string]bool{long + "59999": true, long + "60000": false} {
		if got := must.NotFail(FilterDocument(must.NotFail(types.NewDocument("f", v)), filter)); got != want {
			t.Errorf("%s…: matched %v, want %v", v[len(long):], got, want)
		}
	}
}
