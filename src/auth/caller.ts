import type { FastifyRequest } from 'fastify';
import { Unauthorized } from '@fulfil/contract';
import type { Actor } from '@fulfil/contract';

/** Who made an authenticated /v9 request. Both kinds act for their brokerage (docs/API.md §Roles and tenancy). */
export interface Caller {
  token: string;
  kind: 'api' | 'user';
  /** false: a test credential, acting for its brokerage's sandbox twin (docs/API.md §Test mode). */
  livemode: boolean;
  brokerageId: number;
  userId: number | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth plugin on every /v9 request that passed authentication. */
    caller?: Caller;
    /** The body bytes exactly as received (the signature covers them). */
    rawBody?: Buffer;
  }
}

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthorized('missing credentials');
  return request.caller;
}

export function actorOf(caller: Caller): Actor {
  return { brokerageId: caller.brokerageId, userId: caller.userId, via: caller.kind };
}
