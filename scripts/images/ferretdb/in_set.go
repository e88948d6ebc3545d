// gfts: $in over a long list compared each document with every element (types.Compare),
// so a batch read of 500 gamers' tasks cost 500 comparisons per document, and a read of
// 2,500 documents by _id $in took seconds. A string field is looked up in a set instead.

package common

import (
	"strings"
	"sync"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

const (
	// inSetMinLen is the list length from which a set pays off.
	inSetMinLen = 8

	// inSetsMaxBytes bounds what the cache holds: its arrays and sets, estimated at
	// inSetEntryBytes per element plus its string's bytes. A list that alone would pass it
	// gets no set (each element is compared, as upstream does).
	inSetsMaxBytes  = 16 << 20
	inSetEntryBytes = 64
)

var (
	inSetsMu sync.Mutex
	// inSets caches a set per $in array of the queries running now; the keys keep their
	// arrays alive, so a pointer cannot be reused while cached. Cleared when it grows past
	// 256 arrays or inSetsMaxBytes (inSetsBytes).
	inSets      = map[*types.Array]map[string]struct{}{}
	inSetsBytes int
)

// inStringSet is the set of the strings of a $in list, or nil when a set would not answer
// for a string field the way comparing each element does (a regex element, a document with
// an operator, which upstream's comparison refuses with "cannot nest $ under $in", or a
// short list) or when the list is too large to cache.
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
	size := 0

	for i := range arr.Len() {
		size += inSetEntryBytes

		switch v := must.NotFail(arr.Get(i)).(type) {
		case types.Regex:
			return nil
		case *types.Document:
			for _, k := range v.Keys() {
				if strings.HasPrefix(k, "$") {
					return nil
				}
			}
		case string:
			set[v] = struct{}{}
			size += len(v)
		}
	}

	if size > inSetsMaxBytes {
		return nil
	}

	if len(inSets) >= 256 || inSetsBytes+size > inSetsMaxBytes {
		clear(inSets)
		inSetsBytes = 0
	}

	inSets[arr] = set
	inSetsBytes += size

	return set
}
