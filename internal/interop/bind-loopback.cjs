// Preloaded into server-everything (node -r): its HTTP server calls listen()
// without a host, which binds every interface. This adds 127.0.0.1 to every
// host-less listen(), so the test server is reachable from loopback only.
const net = require('net');
const orig = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    if (typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  } else if (args[0] && typeof args[0] === 'object' && !args[0].host && !args[0].path) {
    args[0] = { ...args[0], host: '127.0.0.1' };
  }
  return orig.apply(this, args);
};
