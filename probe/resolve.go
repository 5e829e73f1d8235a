package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// Resolver pins each host name a scan connects to to the addresses of its
// first lookup, and dials only those, in the order the lookup gave them. A
// lookup for every new connection would let a name answer with the user's
// own server first and with another address later (a server that closes
// its connections forces new ones), and the user's credentials would go to
// that other address (DNS rebinding). One Resolver serves a whole
// scan, every transport of it (the crawl as each identity, the OpenAPI
// document, the active probes, the MCP client, the OAuth token endpoint),
// so all of them reach a name at the same addresses.
//
// Through a proxy (HTTPS_PROXY, HTTP_PROXY), the transports dial the proxy,
// so the proxy's name is the one pinned; the proxy resolves the target
// itself, and only it can keep the target's name to one address.
//
// A lookup that fails pins nothing: nothing was sent to any address yet, so
// the next connection may look the name up again. It is safe for concurrent
// use.
type Resolver struct {
	lookup Lookup
	dialer net.Dialer

	mu    sync.Mutex
	hosts map[string]*pinnedHost
	// pinned are the addresses of each lookup that succeeded, for the
	// report.
	pinned map[string][]netip.Addr
}

// Lookup resolves a host name to its addresses, in the order to dial them.
type Lookup func(ctx context.Context, host string) ([]netip.Addr, error)

// pinnedHost is one host's lookup: done is closed once addrs or err is set.
type pinnedHost struct {
	done  chan struct{}
	addrs []netip.Addr
	err   error
}

// maxPinnedAddresses bounds the addresses kept of one answer: a hostile DNS
// server may send hundreds, and each is dialed in turn when the ones before
// fail.
const maxPinnedAddresses = 16

// NewResolver is a Resolver that looks names up with lookup; nil is the
// system's resolver.
func NewResolver(lookup Lookup) *Resolver {
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return &Resolver{
		lookup: lookup,
		dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		hosts:  map[string]*pinnedHost{},
		pinned: map[string][]netip.Addr{},
	}
}

// DialContext connects to addr ("host:port"): an IP address as it is, a
// name at the addresses pinned for it, the first that accepts. Its
// signature is http.Transport.DialContext's.
func (r *Resolver) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return r.dialer.DialContext(ctx, network, addr)
	}
	addrs, err := r.addresses(ctx, host)
	if err != nil {
		return nil, err
	}
	usable := slices.DeleteFunc(slices.Clone(addrs), func(a netip.Addr) bool { return !fitsNetwork(network, a) })
	var errs []error
	for i, a := range usable {
		actx, cancel := attemptContext(ctx, len(usable)-i)
		conn, err := r.dialer.DialContext(actx, network, net.JoinHostPort(a.String(), port))
		cancel()
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("dial %s %s: no address of %s for this network (pinned: %v)", network, addr, host, addrs)
	}
	return nil, errors.Join(errs...)
}

// minAttempt is the least time one address gets when several share what
// is left of the dial's, as net.Dialer gives each address of a name.
const minAttempt = 2 * time.Second

// attemptContext bounds the dial of the first of left addresses, so that it
// gives way to the next in time: an even share of the time the dial has
// left, at least minAttempt, never past the dial's deadline. An address that never answers (an unrouted
// IPv6 one first) then does not take the whole request's time from the
// ones after it. Without a deadline, the dialer's own timeout bounds each.
func attemptContext(ctx context.Context, left int) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, max(time.Until(deadline)/time.Duration(left), minAttempt))
}

// hostKey is the name a host is pinned and reported by: DNS names ignore
// case and a final dot, and the origin check ignores case, so API.test.
// and api.test are one name, looked up once.
func hostKey(host string) string { return strings.TrimSuffix(strings.ToLower(host), ".") }

// fitsNetwork reports whether a can be dialed on network: "tcp4" and "tcp6"
// take their own family only.
func fitsNetwork(network string, a netip.Addr) bool {
	switch network {
	case "tcp4", "udp4", "ip4":
		return a.Is4()
	case "tcp6", "udp6", "ip6":
		return a.Is6()
	}
	return true
}

// addresses are the addresses pinned for host, looked up once, as the
// name was first written: the connections opened meanwhile wait for that
// lookup rather than making their own.
func (r *Resolver) addresses(ctx context.Context, host string) ([]netip.Addr, error) {
	key := hostKey(host)
	r.mu.Lock()
	p, ok := r.hosts[key]
	if !ok {
		p = &pinnedHost{done: make(chan struct{})}
		r.hosts[key] = p
		r.mu.Unlock()
		p.addrs, p.err = r.resolve(ctx, host)
		r.mu.Lock()
		if p.err != nil {
			delete(r.hosts, key)
		} else {
			r.pinned[key] = p.addrs
		}
		r.mu.Unlock()
		close(p.done)
		return p.addrs, p.err
	}
	r.mu.Unlock()
	select {
	case <-p.done:
		return p.addrs, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// resolve is one lookup of host, its addresses unmapped (an IPv4 address
// in IPv6 form dials as IPv4), without repeats, and bounded.
func (r *Resolver) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	got, err := r.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	for _, a := range got {
		a = a.Unmap()
		if !a.IsValid() || slices.Contains(addrs, a) {
			continue
		}
		if addrs = append(addrs, a); len(addrs) == maxPinnedAddresses {
			break
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("lookup %s: no address", host)
	}
	return addrs, nil
}

// Addresses maps each host name looked up to the addresses pinned for it,
// in the order they are dialed; nil when no name was looked up (a target
// named by its IP address). The report names them, so a reader sees where
// the scan's requests went.
func (r *Resolver) Addresses() map[string][]string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pinned) == 0 {
		return nil
	}
	out := make(map[string][]string, len(r.pinned))
	for host, addrs := range r.pinned {
		for _, a := range addrs {
			out[host] = append(out[host], a.String())
		}
	}
	return out
}
