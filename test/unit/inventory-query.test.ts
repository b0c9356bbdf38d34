import { describe, expect, it } from 'vitest';
import { InvalidParams } from '@fulfil/contract';
import { parseIndexQuery, type RawQuery } from '../../src/inventory/index-query.ts';

function refusal(raw: RawQuery): { message: string; field: string | undefined } {
  try {
    parseIndexQuery(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidParams);
    return { message: (err as InvalidParams).message, field: (err as InvalidParams).field };
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe('inventory index query: default mode', () => {
  it('without page parameters reads the first 10000 of ALL from remote_id 1 (docs/API.md §Inventory)', () => {
    expect(parseIndexQuery({ office_id: '10' })).toEqual({ mode: 'default', officeId: 10, state: 'ALL', cursor: 1, items: 10000 });
  });

  it('accepts ALL, MAPPED and UNMAPPED when not paginating', () => {
    for (const state of ['ALL', 'MAPPED', 'UNMAPPED'] as const) {
      expect(parseIndexQuery({ office_id: '10', state })).toMatchObject({ mode: 'default', state });
    }
  });

  it('requires MAPPED or UNMAPPED when paginating, by cursor or by items (I2)', () => {
    for (const page of [{ 'page[cursor]': '1' }, { 'page[items]': '5' }]) {
      expect(refusal({ office_id: '10', ...page })).toEqual({
        message: 'state: must be MAPPED or UNMAPPED when paginating',
        field: 'state',
      });
      expect(refusal({ office_id: '10', state: 'ALL', ...page }).field).toBe('state');
      expect(parseIndexQuery({ office_id: '10', state: 'UNMAPPED', ...page })).toMatchObject({ state: 'UNMAPPED' });
    }
  });

  it('takes page[cursor] from 0 and page[items] from 1 to 10000', () => {
    expect(parseIndexQuery({ office_id: '10', state: 'MAPPED', 'page[cursor]': '0', 'page[items]': '1' })).toEqual({
      mode: 'default',
      officeId: 10,
      state: 'MAPPED',
      cursor: 0,
      items: 1,
    });
    expect(parseIndexQuery({ office_id: '10', state: 'MAPPED', 'page[items]': '10000' })).toMatchObject({ cursor: 1, items: 10000 });
    expect(refusal({ office_id: '10', state: 'MAPPED', 'page[items]': '10001' })).toEqual({
      message: 'page[items] must be less than or equal to 10000',
      field: 'page[items]',
    });
    expect(refusal({ office_id: '10', state: 'MAPPED', 'page[items]': '0' })).toEqual({
      message: 'page[items]: must be greater than or equal to 1',
      field: 'page[items]',
    });
  });

  it('refuses a state in another case or spelling', () => {
    for (const state of ['mapped', 'Mapped', 'NONE', '']) {
      expect(refusal({ office_id: '10', state })).toEqual({ message: 'state: must be one of ALL, MAPPED, UNMAPPED', field: 'state' });
    }
  });
});

describe('inventory index query: detailed mode', () => {
  it('defaults page[cursor] to 1 and page[items] to 1000 once a page parameter is given (D3, D4)', () => {
    expect(parseIndexQuery({ office_id: '10', response: 'detailed', 'page[items]': '3' })).toEqual({
      mode: 'detailed',
      officeId: 10,
      state: 'MAPPED',
      cursor: 1,
      items: 3,
    });
    expect(parseIndexQuery({ office_id: '10', response: 'detailed', 'page[cursor]': '7' })).toMatchObject({ cursor: 7, items: 1000 });
  });

  it('says "page is missing" without a page parameter (D3)', () => {
    expect(refusal({ office_id: '10', response: 'detailed' })).toEqual({ message: 'page is missing', field: 'page' });
    expect(refusal({ office_id: '10', response: 'detailed', state: 'MAPPED' }).message).toBe('page is missing');
  });

  it('caps page[items] at 1000 with the documented text (D4)', () => {
    expect(parseIndexQuery({ office_id: '10', response: 'detailed', 'page[items]': '1000' })).toMatchObject({ items: 1000 });
    for (const items of ['1001', '10000', '10001']) {
      expect(refusal({ office_id: '10', response: 'detailed', 'page[items]': items })).toEqual({
        message: 'page[items] must be less than or equal to 1000',
        field: 'page[items]',
      });
    }
  });

  it('accepts state MAPPED or none, refuses UNMAPPED and ALL (D2)', () => {
    expect(parseIndexQuery({ office_id: '10', response: 'detailed', state: 'MAPPED', 'page[cursor]': '1' })).toMatchObject({
      state: 'MAPPED',
    });
    for (const state of ['UNMAPPED', 'ALL']) {
      expect(refusal({ office_id: '10', response: 'detailed', state, 'page[cursor]': '1' })).toEqual({
        message: 'state: must be MAPPED in detailed mode',
        field: 'state',
      });
    }
  });
});

describe('inventory index query: every mode', () => {
  it('requires office_id as a positive integer', () => {
    expect(refusal({})).toEqual({ message: 'office_id: is missing', field: 'office_id' });
    for (const office_id of ['', 'ten', '-1', '+10', '1.0', '1e3', ' 10', '99999999999999999']) {
      expect(refusal({ office_id }).field).toBe('office_id');
    }
    expect(refusal({ office_id: '0' })).toEqual({ message: 'office_id: must be greater than or equal to 1', field: 'office_id' });
  });

  it('refuses a response other than detailed, whatever the other parameters', () => {
    for (const response of ['foo', 'DETAILED', 'minimal', '']) {
      expect(refusal({ office_id: '10', response })).toEqual({ message: 'response: must be detailed or absent', field: 'response' });
    }
  });

  it('refuses a page[cursor] that is not an integer of 0 or more', () => {
    for (const cursor of ['-1', 'x', '', '1.5']) {
      expect(refusal({ office_id: '10', state: 'MAPPED', 'page[cursor]': cursor }).field).toBe('page[cursor]');
    }
  });

  it('refuses unknown parameters, by name', () => {
    expect(refusal({ office_id: '10', foo: '1' })).toEqual({ message: 'foo: not a recognised parameter', field: 'foo' });
    expect(refusal({ office_id: '10', 'page[size]': '1' }).field).toBe('page[size]');
    expect(refusal({ office_id: '10', page: '1' }).field).toBe('page');
  });

  it('refuses a parameter given twice', () => {
    expect(refusal({ office_id: ['10', '11'] })).toEqual({ message: 'office_id: must be given once', field: 'office_id' });
    expect(refusal({ office_id: '10', state: ['MAPPED', 'MAPPED'] }).field).toBe('state');
  });
});
