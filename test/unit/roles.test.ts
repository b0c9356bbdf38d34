import { describe, expect, it } from 'vitest';
import { orderRole } from '../../src/auth/roles.ts';

describe('orderRole', () => {
  const order = { sellerBrokerageId: 1, buyerBrokerageId: 2 };

  it('the brokerage owning the seller office is the seller', () => {
    expect(orderRole({ brokerageId: 1 }, order)).toBe('seller');
  });

  it('the buyer brokerage is the buyer', () => {
    expect(orderRole({ brokerageId: 2 }, order)).toBe('buyer');
  });

  it('any other brokerage is a stranger', () => {
    expect(orderRole({ brokerageId: 3 }, order)).toBe('stranger');
  });

  it('a brokerage on both sides acts as the seller', () => {
    expect(orderRole({ brokerageId: 5 }, { sellerBrokerageId: 5, buyerBrokerageId: 5 })).toBe('seller');
  });

  it('user and api callers of one brokerage get the same role', () => {
    const api = { token: 't', kind: 'api' as const, brokerageId: 2, userId: null };
    const user = { token: 'u', kind: 'user' as const, brokerageId: 2, userId: 200 };
    expect(orderRole(api, order)).toBe(orderRole(user, order));
  });
});
