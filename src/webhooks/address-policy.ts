import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may not go (docs/WEBHOOKS.md §SSRF): loopback, private, shared, link-local (which
 * holds the cloud metadata address 169.254.169.254), unspecified, multicast and reserved ranges, in
 * IPv4 and IPv6. An IPv4-mapped or NAT64 IPv6 address is judged by the IPv4 address inside it.
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::/96), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Whether a webhook may connect to this IP address (production rules). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !BLOCKED.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return isPublicAddress(v4);
  return !BLOCKED.check(address, 'ipv6');
}

export interface AddressPolicy {
  /** WEBHOOK_ALLOW_PRIVATE: development may use http:// and loopback or private addresses. */
  allowPrivate: boolean;
}

/** Why a URL may not be an endpoint, or undefined when its form is acceptable (addresses are checked apart). */
export function urlProblem(raw: string, policy: AddressPolicy): string | undefined {
  if (raw.length > 2048) return 'url: at most 2048 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url: not a valid absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    return policy.allowPrivate ? 'url: must be http:// or https://' : 'url: must be https://';
  }
  if (url.username || url.password) return 'url: must not carry a user name or password';
  if (url.hash) return 'url: must not have a #fragment';
  if (!url.hostname) return 'url: has no host';
  return undefined;
}

/** The host of a URL as a resolver or isIP wants it (IPv6 literals lose their brackets). */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
