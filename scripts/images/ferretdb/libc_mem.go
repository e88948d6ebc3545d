package libc

// Copied into modernc.org/libc by scripts/provision.sh (scripts/images/ferretdb/README.md,
// "memcmp and memcpy"). The C library that modernc.org/libc transpiles from musl compares
// and copies memory one byte (or one 32-bit word) at a time in Go; SQLite's JSON parse
// cache compares whole stored documents with memcmp on every JSON function call, which
// made that loop 13 % of the store's CPU in a bulk update. These use Go's runtime
// routines (vectorised) with the same results: memcmp's sign, memcpy's copy.

import (
	"bytes"
	"unsafe"
)

func gftsMemcmp(l, r uintptr, n Tsize_t) int32 {
	if n == 0 {
		return 0
	}
	return int32(bytes.Compare(unsafe.Slice((*byte)(unsafe.Pointer(l)), n), unsafe.Slice((*byte)(unsafe.Pointer(r)), n)))
}

// memmove semantics (copy handles overlap), which memcpy callers may rely on by accident too.
func gftsMemmove(dest, src uintptr, n Tsize_t) uintptr {
	if n != 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(dest)), n), unsafe.Slice((*byte)(unsafe.Pointer(src)), n))
	}
	return dest
}

func gftsMemset(dest uintptr, c int32, n Tsize_t) uintptr {
	if n != 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(dest)), n)
		if v := byte(c); v == 0 {
			for i := range b {
				b[i] = 0 // this exact loop compiles to a memclr (SQLite's memsets are nearly all zero)
			}
		} else {
			// fill by doubling: each copy is a memmove of what is already set
			b[0] = v
			for filled := 1; filled < len(b); filled *= 2 {
				copy(b[filled:], b[:filled])
			}
		}
	}
	return dest
}
