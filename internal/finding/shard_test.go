package finding

import "testing"

func TestParseShard(t *testing.T) {
	for _, ok := range []struct {
		in   string
		want Shard
	}{{"1/1", Shard{1, 1}}, {"2/4", Shard{2, 4}}, {" 4/4 ", Shard{4, 4}}} {
		got, err := ParseShard(ok.in)
		if err != nil || got != ok.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", ok.in, got, err, ok.want)
		}
	}
	for _, bad := range []string{"", "1", "0/2", "3/2", "1/0", "-1/2", "a/b", "1/2/3", "1.5/2"} {
		if got, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) = %v, want an error", bad, got)
		}
	}
}

func TestOnlyShardOneIsSiteWide(t *testing.T) {
	for _, c := range []struct {
		s     Shard
		split bool
		site  bool
	}{{Shard{}, false, true}, {Shard{1, 1}, false, true}, {Shard{1, 3}, true, true}, {Shard{2, 3}, true, false}} {
		if c.s.Split() != c.split || c.s.SiteWide() != c.site {
			t.Errorf("%v: split %v site-wide %v, want %v %v", c.s, c.s.Split(), c.s.SiteWide(), c.split, c.site)
		}
	}
}
