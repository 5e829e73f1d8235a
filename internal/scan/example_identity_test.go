package scan

import (
	"fmt"
	"net/http"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/probe"
)

// Example_addingAnIdentityKind follows CONTRIBUTING's "Adding an identity
// type": the configuration's identity becomes one probe.Identity, which
// alone holds the credential (here an API key in a header, as the CLI builds
// it from config.Identity), and probe.Describe gives it, once, the
// exchange.Caller every later layer reads: the probe carries that value
// onto the view of what the identity was shown, and the checks see it as it
// is, by name, rank, roles and the names of the credential headers it
// sends, never a value.
func Example_addingAnIdentityKind() {
	reader := probe.Identity{Caller: exchange.Caller{Name: "reader", Roles: []string{"read"}},
		Header: http.Header{"X-Api-Key": {"key-from-READER_KEY"}}}
	admin := probe.Identity{Caller: exchange.Caller{Name: "admin", Roles: []string{"admin"}},
		OAuth: &probe.OAuth{TokenURL: "https://auth.test/token", ClientID: "c", ClientSecret: "from-ADMIN_SECRET"}}
	ids := probe.Describe([]probe.Identity{reader, admin}, nil)
	views := identityViews([]probe.View{{Caller: ids[0].Caller}, {Caller: ids[1].Caller}})
	for _, v := range views {
		fmt.Printf("%d %s roles=%v credentials=%v\n", v.Rank, v.Name, v.Roles, v.Credentials)
	}
	// Output:
	// 0 reader roles=[read] credentials=[X-Api-Key]
	// 1 admin roles=[admin] credentials=[Authorization]
}
