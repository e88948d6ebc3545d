// gfts: $in over a long list compared each document with every element (types.Compare),
// so a batch read of 500 gamers' tasks cost 500 comparisons per document, and a read of
// 2,500 documents by _id $in took seconds. A string field is looked up in a set instead.

package common

import (
	"sync"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// inSetMinLen is the list length from which a set pays off.
const inSetMinLen = 8

var (
	inSetsMu sync.Mutex
	// inSets caches a set per $in array of the queries running now; the keys keep their
	// arrays alive, so a pointer cannot be reused while cached. Cleared when it grows.
	inSets = map[*types.Array]map[string]struct{}{}
)

// inStringSet is the set of the strings of a $in list, or nil when a set would not answer
// for a string field the way comparing each element does (a regex element, or a short list).
// Other elements (numbers, documents, …) never equal a string, so they are left out.
func inStringSet(arr *types.Array) map[string]struct{} {
	if arr.Len() < inSetMinLen {
		return nil
	}

	inSetsMu.Lock()
	defer inSetsMu.Unlock()

	if set, ok := inSets[arr]; ok {
		return set
	}

	set := make(map[string]struct{}, arr.Len())

	for i := range arr.Len() {
		switch v := must.NotFail(arr.Get(i)).(type) {
		case types.Regex:
			return nil
		case string:
			set[v] = struct{}{}
		}
	}

	if len(inSets) >= 256 {
		clear(inSets)
	}

	inSets[arr] = set

	return set
}
