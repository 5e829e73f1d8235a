package shardmerge

import (
	"reflect"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// TestJoinStatsAddresses: each shard looked its hosts up itself; the merged
// report names, for each host, every address any shard connected to, in
// shard order, once each.
func TestJoinStatsAddresses(t *testing.T) {
	reps := []*finding.Report{
		{Stats: finding.Stats{Addresses: map[string][]string{"api.test": {"127.0.0.1", "::1"}}}},
		{Stats: finding.Stats{}},
		{Stats: finding.Stats{Addresses: map[string][]string{"api.test": {"::1", "127.0.0.2"}, "docs.test": {"127.0.0.3"}}}},
	}
	want := map[string][]string{"api.test": {"127.0.0.1", "::1", "127.0.0.2"}, "docs.test": {"127.0.0.3"}}
	if got := joinStats(reps).Addresses; !reflect.DeepEqual(got, want) {
		t.Errorf("addresses %v, want %v", got, want)
	}
	if got := joinStats(reps[1:2]).Addresses; got != nil {
		t.Errorf("no shard looked a name up: addresses %v, want none", got)
	}
}
