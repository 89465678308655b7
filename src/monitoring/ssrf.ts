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

/** True for loopback, private, link-local, CGNAT, documentation, multicast and reserved addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged by the IPv4 address they carry.
  const mapped = /^(?:::ffff:|::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hexMapped?.[1] && hexMapped[2]) {
    const high = parseInt(hexMapped[1], 16);
    const low = parseInt(hexMapped[2], 16);
    return blocked.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return blocked.check(address, 'ipv6');
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
