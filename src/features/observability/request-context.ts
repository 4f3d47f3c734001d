import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** What this process knows about the HTTP request it is serving now. */
export interface RequestContext {
  readonly requestId: string;
  /** The name of the token the request authenticated with, once the GraphQL context knows it. */
  tokenName: string | null;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** A client's id is kept when it is one short token of safe characters, so it cannot forge log fields. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && SANE_ID.test(value) ? value : randomUUID();
}

export function runInRequest<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** Named after the token, for the access log line; the secret itself is never kept. */
export function noteTokenName(name: string): void {
  const context = storage.getStore();
  if (context) context.tokenName = name;
}

/**
 * pino's mixin: every line logged while a request is served (by any service, at any depth) carries
 * its id, the way a child logger would without handing one down through every call.
 */
export function requestLogFields(): Record<string, string> {
  const context = storage.getStore();
  return context ? { requestId: context.requestId } : {};
}
