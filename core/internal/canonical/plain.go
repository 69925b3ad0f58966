package canonical

import "math/bits"

// Eight bytes at once: lsb has 1 in every byte, msb 0x80 in every byte.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainRun is the index of the first byte of s at or after i that is not
// plainByte (a control character, '"', '\\' or a byte from 0x80 on), or
// len(s) when there is none. It reads eight bytes at a time (one load on
// amd64, arm64 and wasm): a word's byte b is flagged when b-0x20 borrows
// (b < 0x20), when b^'"'-1 or b^'\\'-1 borrows (b is '"' or '\\'), or when
// b's top bit is set. A borrow reaches only the bytes above the one that
// caused it, so the lowest flagged byte is the first one that is not
// plain (bits.TrailingZeros64), and a word with no flag holds only plain
// bytes. TestPlainRun holds it to plainByte on every byte at every offset.
func plainRun[T string | []byte](s T, i int) int {
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8]
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		if m := ((w - lsb*0x20) | ((w ^ lsb*'"') - lsb) | ((w ^ lsb*'\\') - lsb) | w) & msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	return i
}
