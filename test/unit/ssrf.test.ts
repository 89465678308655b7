// The SSRF guard on every IPv6 form that carries an IPv4 address, and on the address a connection really goes to
// (the lookup hook the sender hands http.request): pure logic, no network.
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, embeddedIpv4, guardedLookup, ipv6Groups, isPrivateAddress } from '../../src/monitoring/ssrf.js';
import { WebhookSender } from '../../src/monitoring/sender.js';

describe('isPrivateAddress on IPv6 forms that embed IPv4', () => {
  it.each([
    ['::7f00:1', 'IPv4-compatible loopback, as URL parsing normalises ::127.0.0.1'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::a9fe:a9fe', 'IPv4-compatible link-local (cloud metadata)'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:a00:1', 'IPv4-mapped private, hex'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['::ffff:0:a9fe:a9fe', 'IPv4-translated link-local, hex'],
    ['::ffff:0:192.168.1.1', 'IPv4-translated private'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of link-local'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 of a private address'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo whose client is 10.0.0.1 (inverted)'],
    ['2001:0:7f00:1::1', 'Teredo whose server is loopback'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['fd00::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['1::', 'reserved, outside global unicast'],
    ['2001:db8::1', 'documentation'],
  ])('refuses %s (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['2606:4700:4700::1111', '::ffff:8.8.8.8', '::ffff:0:8.8.8.8', '2002:808:808::1', '2a00:1450:4001:80b::200e'])('accepts %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('expands every spelling of an address to the same groups and names what it carries', () => {
    expect(ipv6Groups('::127.0.0.1')).toEqual(ipv6Groups('::7f00:1'));
    expect(ipv6Groups('0:0:0:0:0:ffff:7f00:1')).toEqual(ipv6Groups('::ffff:127.0.0.1'));
    expect(ipv6Groups('1:2:3:4:5:6:7:8:9')).toBeNull();
    expect(ipv6Groups('1::2::3')).toBeNull();
    expect(embeddedIpv4(ipv6Groups('2002:c0a8:101::1') ?? [])).toEqual(['192.168.1.1']);
    expect(embeddedIpv4(ipv6Groups('2001:0:4136:e378:8000:63bf:f5ff:fffe') ?? [])).toEqual(['65.54.227.120', '10.0.0.1']);
  });

  it('refuses the same forms as webhook URLs, which URL parsing rewrites before the guard sees them', async () => {
    for (const url of ['http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/', 'http://[2002:7f00:1::]/', 'http://[::ffff:169.254.169.254]/', 'http://[64:ff9b::a9fe:a9fe]/']) {
      expect(await checkWebhookUrl(url, false), url).toMatchObject({ ok: false });
    }
  });
});

describe('the address a delivery connects to', () => {
  it('the lookup hook refuses a name any of whose addresses is private, and hands over only checked addresses', async () => {
    const lookup = guardedLookup(false);
    const resolve = (host: string, all: boolean) => new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) => {
      lookup(host, { all }, (error, address) => done({ error, address }));
    });
    const local = await resolve('localhost', false);
    expect(local.error?.code).toBe('EWEBHOOKADDRESS');
    expect((await resolve('localhost', true)).error?.code).toBe('EWEBHOOKADDRESS');
    const allowed = await new Promise<string>((done) => guardedLookup(true)('localhost', { all: false }, (_error, address) => done(String(address))));
    expect(isPrivateAddress(allowed)).toBe(true);
  });

  it('a literal IPv6 target embedding loopback is refused before any connection', async () => {
    const sender = new WebhookSender(false, 1000);
    try {
      for (const url of ['http://[::127.0.0.1]:9/hook', 'http://[::ffff:0:7f00:1]:9/hook', 'http://[2002:7f00:1::1]:9/hook']) {
        const result = await sender.send(url, { id: 'msg_1', body: '{}', secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] });
        expect(result.status, url).toBeNull();
        expect(result.error, url).toMatch(/^refused: /);
      }
    } finally {
      sender.close();
    }
  });
});
