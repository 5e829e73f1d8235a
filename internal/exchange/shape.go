package exchange

import (
	"hash/fnv"
	"strings"
)

// PathShape replaces path segments that look like identifiers with "{id}", so
// that /orders/17 and /orders/18 share the shape /orders/{id}. Sampling and
// fingerprints use it: neither must depend on which IDs a crawl happened to see.
func PathShape(path string) string {
	if path == "" {
		return "/"
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if looksLikeID(s) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

func looksLikeID(seg string) bool {
	if seg == "" {
		return false
	}
	// Keep an extension visible: /reports/12.json has the shape /reports/{id}.json
	// only after the caller splits it; here a segment with a dot is judged whole.
	digits, hex, other := 0, 0, 0
	for _, r := range seg {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F'):
			hex++
		case r == '-' || r == '_':
		default:
			other++
		}
	}
	if digits == len(seg) {
		return true
	}
	// UUIDs, hashes and ULID-like tokens: long and mostly digits or hex.
	if len(seg) >= 16 && other == 0 && digits > 0 {
		return true
	}
	// Mixed prefixes such as ord_8f3k2 or A1B2C3: at least three digits and a
	// digit share that words rarely have.
	return digits >= 3 && digits*3 >= len(seg)
}

// ShapeShard is the shard, from 1 to total, that owns a path shape: a hash
// of the shape alone, so that every run, every job of a CI matrix and every
// map order assigns a shape to the same shard.
func ShapeShard(shape string, total int) int {
	if total <= 1 {
		return 1
	}
	h := fnv.New64a()
	h.Write([]byte(shape))
	return int(mix(h.Sum64())%uint64(total)) + 1
}

// mix is MurmurHash3's 64-bit finalizer. FNV-1a's low bits are poorly
// mixed: its lowest is the parity of the odd bytes, so without it every
// shape and its "/{id}" child (four odd bytes) fell in one shard of two, and
// a site of a few shapes could leave a shard of two with none.
func mix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// URLShard is the shard that owns the path shape of a URL.
func URLShard(rawURL string, total int) int {
	return ShapeShard(PathShape(PathOf(rawURL)), total)
}
