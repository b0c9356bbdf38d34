import { describe, expect, it } from 'vitest';
import { isPublicAddress, urlProblem } from '../../src/webhooks/address-policy.ts';
import { retryDelayMs } from '../../src/webhooks/backoff.ts';

describe('webhook address policy', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a00:1',
    // IPv4-compatible (deprecated) and IPv4-translated forms: refused whatever they carry
    '::127.0.0.1',
    '::7f00:1',
    '::10.0.0.1',
    '::8.8.8.8',
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:8.8.8.8',
    // NAT64: the well-known prefix with a private IPv4 inside; the local-use prefix at all
    '64:ff9b::127.0.0.1',
    '64:ff9b::c0a8:101',
    '64:ff9b:1::7f00:1',
    '64:ff9b:1::8.8.8.8',
    // 6to4 with a private IPv4 inside; Teredo
    '2002:7f00:1::1',
    '2002:a00:1::',
    '2002:a9fe:a9fe::1',
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    // ULA, link-local, site-local, multicast, documentation, discard, unspecified and loopback
    'fd12:3456:789a::1',
    'fe80::1%eth0',
    'febf::1',
    'fec0::1',
    'feff::1',
    'ff0e::1',
    '2001:db8::1',
    '2001:db8:ffff::1',
    '3fff::1',
    '100::1',
    '0:0:0:0:0:0:0:0',
    '0:0:0:0:0:0:0:1',
    // outside global unicast 2000::/3
    '4000::1',
    'e000::1',
    '1::1',
    // any spelling
    'FE80::1',
    '0000:0000:0000:0000:0000:FFFF:7F00:0001',
    '::FFFF:0:7F00:1',
    'not-an-ip',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:93.184.216.34',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:4860:4860::8888',
    '2606:4700:4700:0:0:0:0:1111',
    '2001:200::1',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('wants https, no credentials or fragment; http only where private addresses are allowed', () => {
    const prod = { allowPrivate: false };
    expect(urlProblem('https://hooks.example/x', prod)).toBeUndefined();
    expect(urlProblem('http://hooks.example/x', prod)).toMatch(/https/);
    expect(urlProblem('http://hooks.example/x', { allowPrivate: true })).toBeUndefined();
    expect(urlProblem('https://a:b@hooks.example/x', prod)).toMatch(/user name/);
    expect(urlProblem('https://hooks.example/x#y', prod)).toMatch(/fragment/);
    expect(urlProblem('hooks.example/x', prod)).toMatch(/not a valid/);
    expect(urlProblem(`https://hooks.example/${'a'.repeat(2048)}`, prod)).toMatch(/2048/);
  });

  it('backs off doubling, jittered in the upper half, capped', () => {
    const policy = { baseMs: 1000, maxMs: 60_000 };
    expect(retryDelayMs(1, policy, () => 0)).toBe(500);
    expect(retryDelayMs(1, policy, () => 1)).toBe(1000);
    expect(retryDelayMs(3, policy, () => 1)).toBe(4000);
    expect(retryDelayMs(30, policy, () => 1)).toBe(60_000);
    expect(retryDelayMs(1000, policy, () => 0)).toBe(30_000);
  });
});
