package gftslibc

// Copied into FerretDB's tree (internal/util/gftslibc/) and run by scripts/provision.sh
// against the patched modernc.org/libc before FerretDB is built: the helpers
// must answer what musl's byte loops answer (memcmp's sign over unsigned bytes, memmove
// with overlap in both directions, memset of any byte), through the patched entry points.

import (
	"bytes"
	"math/rand"
	"testing"
	"unsafe"

	. "modernc.org/libc"
)

func ptr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

func sign(v int32) int32 {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

func TestGftsMemcmp(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		n := rng.Intn(300)
		a := make([]byte, n+1)
		rng.Read(a)
		b := bytes.Clone(a)
		if n > 0 && rng.Intn(3) > 0 {
			b[rng.Intn(n)] = byte(rng.Intn(256)) // bytes above 127 compare as unsigned, as in C
		}
		want := int32(0)
		for j := 0; j < n; j++ {
			if a[j] != b[j] {
				want = int32(a[j]) - int32(b[j])
				break
			}
		}
		if got := Xmemcmp(nil, ptr(a), ptr(b), Tsize_t(n)); sign(got) != sign(want) {
			t.Fatalf("memcmp(%x, %x, %d) = %d, want the sign of %d", a[:n], b[:n], n, got, want)
		}
		if got := xmemcmpMusl(ptr(a), ptr(b), Tsize_t(n)); sign(got) != sign(want) {
			t.Fatalf("the musl loop disagrees with the reference: %d, want the sign of %d", got, want)
		}
	}
}

// xmemcmpMusl is musl's loop, as the reference the patched Xmemcmp replaced.
func xmemcmpMusl(l, r uintptr, n Tsize_t) int32 {
	for ; n != 0 && *(*uint8)(unsafe.Pointer(l)) == *(*uint8)(unsafe.Pointer(r)); n, l, r = n-1, l+1, r+1 {
	}
	if n == 0 {
		return 0
	}
	return int32(*(*uint8)(unsafe.Pointer(l))) - int32(*(*uint8)(unsafe.Pointer(r)))
}

func TestGftsMemcpyMemmoveMemset(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 5000; i++ {
		buf := make([]byte, 512)
		rng.Read(buf)
		n := rng.Intn(200)
		src, dst := rng.Intn(512-n), rng.Intn(512-n)
		want := bytes.Clone(buf)
		copy(want[dst:dst+n], bytes.Clone(buf[src:src+n]))
		got := bytes.Clone(buf)
		base := ptr(got)
		move := Xmemmove
		if i%2 == 0 {
			move = Xmemcpy
		}
		if r := move(nil, base+uintptr(dst), base+uintptr(src), Tsize_t(n)); r != base+uintptr(dst) {
			t.Fatalf("returned %x, want dest %x", r, base+uintptr(dst))
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("copy of %d bytes from %d to %d differs", n, src, dst)
		}
		c := rng.Intn(256)
		if r := Xmemset(nil, base+uintptr(dst), int32(c)|0x100, Tsize_t(n)); r != base+uintptr(dst) { // only the low byte counts
			t.Fatalf("memset returned %x", r)
		}
		for j := dst; j < dst+n; j++ {
			want[j] = byte(c)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("memset of %d bytes at %d differs", n, dst)
		}
	}
	if r := Xmemcpy(nil, 0, 0, 0); r != 0 {
		t.Fatalf("a zero-length copy touched nothing and returns dest, got %x", r)
	}
}
