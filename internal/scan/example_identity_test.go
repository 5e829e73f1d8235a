package scan

import (
	"fmt"
	"net/http"

	"github.com/agentready/agentready/probe"
)

// Example_addingAnIdentityKind follows CONTRIBUTING's "Adding an identity
// type": the configuration's identity becomes one probe.Identity, which
// alone holds the credential (here an API key in a header, as the CLI builds
// it from config.Identity), and the checks see that identity by name, rank,
// roles and the names of the credential headers it sends, never a value.
func Example_addingAnIdentityKind() {
	reader := probe.Identity{Name: "reader", Roles: []string{"read"},
		Header: http.Header{"X-Api-Key": {"key-from-READER_KEY"}}}
	admin := probe.Identity{Name: "admin", Roles: []string{"admin"},
		OAuth: &probe.OAuth{TokenURL: "https://auth.test/token", ClientID: "c", ClientSecret: "from-ADMIN_SECRET"}}
	ids := []probe.Identity{reader, admin}
	views := identityViews(callers(ids, nil, len(ids)), []probe.View{{Name: "reader"}, {Name: "admin"}})
	for _, v := range views {
		fmt.Printf("%d %s roles=%v credentials=%v\n", v.Rank, v.Name, v.Roles, v.Credentials)
	}
	// Output:
	// 0 reader roles=[read] credentials=[X-Api-Key]
	// 1 admin roles=[admin] credentials=[Authorization]
}
