package finding

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of a scan split across CI jobs (--shard i/n): Index
// counts from 1 to Total. The zero value is the whole scan.
type Shard struct {
	Index int `json:"index"`
	Total int `json:"total"`
}

// ParseShard reads "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/n, such as 1/4", s)
	}
	index, err1 := strconv.Atoi(i)
	total, err2 := strconv.Atoi(n)
	if err := errors.Join(err1, err2); err != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n with whole numbers, such as 1/4", s)
	}
	sh := Shard{Index: index, Total: total}
	if !sh.Valid() {
		return Shard{}, fmt.Errorf("shard %q: want 1 ≤ i ≤ n", s)
	}
	return sh, nil
}

// Valid reports 1 ≤ Index ≤ Total.
func (s Shard) Valid() bool { return s.Total >= 1 && s.Index >= 1 && s.Index <= s.Total }

// Split reports whether the scan is one of several shards: "1/1" is the
// whole scan.
func (s Shard) Split() bool { return s.Total > 1 }

// SiteWide reports whether this shard runs what belongs to the site as a
// whole (robots.txt, discovery documents, MCP): the whole scan, or shard 1.
func (s Shard) SiteWide() bool { return !s.Split() || s.Index == 1 }

func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Total) }
