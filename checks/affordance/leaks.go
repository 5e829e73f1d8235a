package affordance

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/agentready/agentready/internal/jsonorder"
)

// internalKeys are member names that carry implementation details into a
// model-facing representation (seed 003: "handler is an internal
// implementation detail").
var internalKeys = map[string]bool{
	"handler": true, "handlerName": true, "handler_name": true, "controller": true,
	"beanName": true, "bean_name": true, "serviceClass": true, "service_class": true,
}

// fqcn matches a fully qualified class name, optionally with a member:
// com.example.orders.OrderController, com.example.OrderService#cancel.
var fqcn = regexp.MustCompile(`^(?:[a-z][a-z0-9_]*\.){2,}[A-Z][A-Za-z0-9_]*(?:[$#.][A-Za-z_][A-Za-z0-9_]*)?$`)

// internalSuffixes are host suffixes of private networks and cluster DNS.
var internalSuffixes = []string{".internal", ".local", ".localdomain", ".svc", ".cluster.local", ".corp", ".lan", ".intranet"}

// leaks reports internal names in the resource's model-facing members.
func (r *resource) leaks() {
	var visit func(v *jsonorder.Value, depth int)
	visit = func(v *jsonorder.Value, depth int) {
		if depth > maxWalkDepth {
			return
		}
		switch v.Kind {
		case jsonorder.Object:
			for _, m := range v.Members {
				if m.Key == "_links" || m.Key == "_embedded" {
					continue // links are judged by the hal family; embedded resources on their own
				}
				if internalKeys[m.Key] {
					r.issue(idLeak, m.Value, fmt.Sprintf("member %q exposes an implementation detail (%s) to agents", m.Key, m.Value.Literal()),
						"business state only", m.Key)
					continue
				}
				visit(m.Value, depth+1)
			}
		case jsonorder.Array:
			for _, it := range v.Items {
				visit(it, depth+1)
			}
		case jsonorder.String:
			if why := r.internalString(v.Text); why != "" {
				r.issue(idLeak, v, fmt.Sprintf("%s %q is visible to agents", why, v.Text), "business state only", v.Text)
			}
		}
	}
	visit(r.v, 0)
}

// internalString says why s names an internal artefact, or "".
func (r *resource) internalString(s string) string {
	if len(s) > 2048 {
		return ""
	}
	if fqcn.MatchString(s) {
		return "the fully qualified class name"
	}
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return ""
	}
	if self, err := url.Parse(r.x.Request.URL); err == nil && strings.EqualFold(self.Host, u.Host) {
		return "" // the API's own origin, whatever its name
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || !strings.Contains(host, ".") && net.ParseIP(host) == nil {
		return "the internal service URL"
	}
	for _, suffix := range internalSuffixes {
		if strings.HasSuffix(host, suffix) {
			return "the internal service URL"
		}
	}
	if ip := net.ParseIP(host); ip != nil && (ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast()) {
		return "the internal service URL"
	}
	return ""
}
