import { BlockList, isIP } from 'node:net';
import { inPrefix, ipv4Of, ipv6Words } from './ipv6-words.ts';

/**
 * IPv4 ranges a webhook may not reach (docs/WEBHOOKS.md §SSRF): loopback, private, shared,
 * link-local (which holds the cloud metadata address 169.254.169.254), unspecified, multicast,
 * documentation, benchmarking, the 6to4 relay anycast and reserved ranges.
 */
const BLOCKED_V4 = new BlockList();
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
  BLOCKED_V4.addSubnet(net, bits, 'ipv4');
}

const prefix = (address: string, bits: number) => ({ words: ipv6Words(address)!, bits });

/**
 * IPv6 addresses that carry an IPv4 address a packet ends up at, judged by that IPv4 address:
 * IPv4-mapped (how a dual-stack socket names an IPv4 peer), the NAT64 well-known prefix (a
 * translator forwards to whatever it embeds) and 6to4 (a relay forwards to the IPv4 in bits 16–47).
 */
const CARRIERS = [
  { ...prefix('::ffff:0:0', 96), v4: (w: number[]) => ipv4Of(w[6]!, w[7]!) },
  { ...prefix('64:ff9b::', 96), v4: (w: number[]) => ipv4Of(w[6]!, w[7]!) },
  { ...prefix('2002::', 16), v4: (w: number[]) => ipv4Of(w[1]!, w[2]!) },
];

/** Global unicast, 2000::/3: everything else (loopback, unspecified, IPv4-compatible and
 * -translated forms, local-use NAT64, ULA, link- and site-local, multicast, reserved) is refused. */
const GLOBAL_UNICAST = prefix('2000::', 3);

/**
 * Special-purpose blocks inside 2000::/3 that are not a receiver's address: the IETF protocol
 * assignments (Teredo 2001::/32, which embeds another host's IPv4, benchmarking, ORCHID and the
 * like; RIR allocations start at 2001:200::), documentation (2001:db8::/32, 3fff::/20) and SRv6
 * segment identifiers (5f00::/16).
 */
const BLOCKED_V6 = [prefix('2001::', 23), prefix('2001:db8::', 32), prefix('3fff::', 20), prefix('5f00::', 16)];

/** Whether a webhook may connect to this IP address (production rules): global unicast only. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !BLOCKED_V4.check(address, 'ipv4');
  const words = family === 6 ? ipv6Words(address) : undefined;
  if (!words) return false;
  const carrier = CARRIERS.find((c) => inPrefix(words, c.words, c.bits));
  if (carrier) return isPublicAddress(carrier.v4(words));
  if (!inPrefix(words, GLOBAL_UNICAST.words, GLOBAL_UNICAST.bits)) return false;
  return !BLOCKED_V6.some((b) => inPrefix(words, b.words, b.bits));
}

export interface AddressPolicy {
  /** WEBHOOK_ALLOW_PRIVATE: development may use http:// and loopback or private addresses. */
  allowPrivate: boolean;
}

/**
 * Said beside a refusal that a receiver on the developer's own machine meets first (http://, a
 * loopback or private address), so the switch that allows it in development is found at once.
 */
export const DEVELOPMENT_SWITCH =
  ' (a receiver on your own machine or network: set WEBHOOK_ALLOW_PRIVATE=true in development, which allows http:// and private addresses; docs/WEBHOOKS.md)';

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
    return policy.allowPrivate ? 'url: must be http:// or https://' : `url: must be https://${DEVELOPMENT_SWITCH}`;
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
