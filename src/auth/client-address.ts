// Which address a request comes from, for limits on unauthenticated failures. Behind TRUSTED_PROXY_HOPS
// proxies (an ingress controller, a load balancer) that each append their peer to X-Forwarded-For, the client is
// the entry that many places from the right; entries further left are the client's own claims and never trusted.
// With no trusted proxy (the default) the socket's peer address is the client and the header is ignored.

/** A request's origin as the HTTP adapter gives it (HttpRequest has both). */
export interface RequestOrigin {
  readonly peer: { address(): string };
  readonly headers: Readonly<Record<string, string>>;
}

export function clientAddress(origin: RequestOrigin, trustedProxyHops: number): string {
  const peer = origin.peer.address();
  if (trustedProxyHops <= 0) return peer;
  const forwarded = origin.headers['x-forwarded-for'];
  if (!forwarded) return peer;
  const entries = forwarded.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return peer;
  // Fewer entries than trusted hops: the request passed fewer proxies than configured; the leftmost is the
  // nearest to a client any of them saw.
  return entries[Math.max(0, entries.length - trustedProxyHops)] ?? peer;
}
