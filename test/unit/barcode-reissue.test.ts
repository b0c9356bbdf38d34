import { describe, expect, it } from 'vitest';
import type { BarcodeRow } from '../../src/db/sql/shipment-barcodes.ts';
import { barcodesJson, planReissue } from '../../src/domain/barcode-reissue.ts';
import { maskAddress } from '../../src/read/evidence-sources.ts';

const given = (seat: string, value: string, source: BarcodeRow['source'], key: BarcodeRow['key'] = 'barcode'): BarcodeRow => ({
  id: null,
  seat,
  key,
  value,
  source,
  givenAt: new Date('2026-11-28T10:00:00Z'),
  givenBy: null,
  revokedAt: null,
  revokedBy: null,
});

describe('what a reissue revokes and gives', () => {
  const current = [given('12', 'E-12', 'eticket'), given('13', 'E-13', 'eticket'), given('14', 'T-14', 'completion', 'primary_ticket_id')];

  it('new e-tickets replace every e-ticket barcode; one given again unchanged stays', () => {
    const plan = planReissue(current, {
      etickets: [
        { sha256: 'a'.repeat(64), seat: '12', barcode: 'N-12' },
        { sha256: 'b'.repeat(64), seat: '13', barcode: 'E-13' },
      ],
    });
    expect(plan.revoke.map((b) => b.value)).toEqual(['E-12']);
    expect(plan.give).toEqual([{ seat: '12', key: 'barcode', value: 'N-12', source: 'eticket' }]);
  });

  it('new tickets replace the barcodes of their seats only, whatever their kind', () => {
    const plan = planReissue(current, { tickets: [{ seat: '14', verification_id: 'V-14' }] });
    expect(plan.revoke.map((b) => b.value)).toEqual(['T-14']);
    expect(plan.give).toEqual([{ seat: '14', key: 'verification_id', value: 'V-14', source: 'reissue' }]);
  });

  it('a revoked barcode is not revoked again, and nothing given is nothing changed', () => {
    const revoked = { ...given('12', 'OLD', 'eticket'), revokedAt: new Date(), revokedBy: 1 };
    expect(planReissue([revoked], { tickets: [{ seat: '12', barcode: 'NEW' }] }).revoke).toEqual([]);
    expect(planReissue(current, {})).toEqual({ revoke: [], give: [] });
  });

  it('shows the live and the revoked apart', () => {
    const revoked = { ...given('12', 'OLD', 'eticket'), revokedAt: new Date('2026-11-28T11:00:00Z'), revokedBy: 7 };
    expect(barcodesJson([revoked, given('12', 'NEW', 'reissue')])).toEqual({
      live: [{ seat: '12', barcode: 'NEW', source: 'reissue', given_at: '2026-11-28T10:00:00.000Z', given_by_reissue_id: null }],
      revoked: [
        {
          seat: '12',
          barcode: 'OLD',
          source: 'eticket',
          given_at: '2026-11-28T10:00:00.000Z',
          given_by_reissue_id: null,
          revoked_at: '2026-11-28T11:00:00.000Z',
          revoked_by_reissue_id: 7,
        },
      ],
    });
  });
});

describe('the address of a one-time link use', () => {
  it('is never shown whole', () => {
    expect(maskAddress('203.0.113.77')).toBe('203.0.113.0/24');
    expect(maskAddress('::ffff:198.51.100.9')).toBe('198.51.100.0/24');
    expect(maskAddress('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3::/48');
    expect(maskAddress(null)).toBeNull();
    expect(maskAddress('localhost')).toBeNull();
  });
});
