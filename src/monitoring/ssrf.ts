// Webhook URLs must not reach the service's own network (SSRF): every address a host resolves to is checked,
// at registration and again at each delivery through the socket's own DNS lookup (so a name that re-resolves
// to a private address later is refused too, and the connection goes to the address that was checked).
// WEBHOOK_ALLOW_PRIVATE=true lifts the check (tests, private deployments).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (dotted-quad tail and `::` expanded, zone id dropped), or null. */
export function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, '');
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const octets = tail.slice(1).map(Number);
    if (octets.some((octet) => octet > 255)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (half: string | undefined) => (half ? half.split(':') : []);
  const head = part(halves[0]);
  const rest = part(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (groups.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return null;
  return groups.map((group) => parseInt(group, 16));
}

const dotted = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 address an IPv6 address carries where the network would deliver it to (or translate it for) that IPv4
 * host, or null: IPv4-compatible ::a.b.c.d (also written ::7f00:1, as URL parsing normalises ::127.0.0.1),
 * IPv4-mapped ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4
 * 2002:AABB:CCDD::/48 and Teredo 2001:0::/32 (server in bits 32-63, client inverted in the last 32 bits; either
 * one private refuses the address).
 */
export function embeddedIpv4(groups: readonly number[]): string[] {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const last = dotted(g6, g7);
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0) {
    if (g4 === 0 && (g5 === 0 || g5 === 0xffff)) return [last];
    if (g4 === 0xffff && g5 === 0) return [last];
  }
  if (g0 === 0x64 && g1 === 0xff9b) return [last];
  if (g0 === 0x2002) return [dotted(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [dotted(g2, g3), dotted(g6 ^ 0xffff, g7 ^ 0xffff)];
  return [];
}

/** True for loopback, private, link-local, CGNAT, documentation, multicast and reserved addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (groups === null) return true;
  // Judged by every IPv4 address it embeds as well as by itself: ::ffff:8.8.8.8 passes, ::127.0.0.1 does not.
  const carried = embeddedIpv4(groups);
  if (carried.some((ipv4) => blocked.check(ipv4, 'ipv4'))) return true;
  if (carried.length > 0 && groups[0] === 0) return false;
  // Everything else outside global unicast (2000::/3) is loopback, link-local, unique-local, multicast or
  // reserved: refused without listing each range.
  if (((groups[0] ?? 0) & 0xe000) !== 0x2000) return true;
  return blocked.check(groups.map((group) => group.toString(16)).join(':'), 'ipv6');
}

export class UnsafeAddressError extends Error {
  readonly code = 'EWEBHOOKADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement for http.request: resolves every address and refuses if ANY is private. */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number } | number | undefined, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: typeof options === 'number' ? options : options?.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const bad = list.find((entry) => isPrivateAddress(entry.address));
      if (!allowPrivate && (bad || list.length === 0)) {
        return callback(new UnsafeAddressError(`${hostname} resolves to ${bad?.address ?? 'nothing'}, a private or reserved address`) as NodeJS.ErrnoException, []);
      }
      const wantsAll = typeof options === 'object' && options?.all === true;
      if (wantsAll) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

/** Registration-time check of a URL: http(s) only, no credentials, and (unless allowed) no private address. */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<{ ok: true; url: URL } | { ok: false; problem: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: 'must use https (or http)' };
  if (url.username || url.password) return { ok: false, problem: 'must not carry credentials; the signature authenticates the sender' };
  if (allowPrivate) return { ok: true, url };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = await new Promise<string[] | Error>((resolve) => {
    if (isIP(host)) return resolve([host]);
    dnsLookup(host, { all: true }, (error, found) => resolve(error ?? found.map((entry) => entry.address)));
  });
  if (addresses instanceof Error) return { ok: false, problem: `host ${host} does not resolve` };
  const bad = addresses.find(isPrivateAddress);
  if (bad || addresses.length === 0) return { ok: false, problem: `host ${host} resolves to ${bad ?? 'nothing'}, a private or reserved address` };
  return { ok: true, url };
}
