import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'queue'; search: string }
  | { page: 'run'; runId: string }
  | { page: 'call'; callId: string; link: string | null }
  | { page: 'turn'; turnId: string }
  | { page: 'grants'; userId: string | null; runId: string | null };

/**
 * `#/` (optionally `#/?user=…`) is the queue, `#/runs/<id>` a run, `#/calls/<id>` one call
 * (`?link=<token>` when opened from a notification's signed link), `#/turns/<id>` the batch of a
 * model turn, `#/grants?user=…&run=…` the grants.
 */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const q = path.indexOf('?');
  const search = q === -1 ? '' : path.slice(q);
  const params = new URLSearchParams(search);
  const match = /^\/(runs|calls|turns)\/([^/?]+)/.exec(path);
  if (match) {
    const id = decodeURIComponent(match[2]!);
    if (match[1] === 'runs') return { page: 'run', runId: id };
    if (match[1] === 'turns') return { page: 'turn', turnId: id };
    return { page: 'call', callId: id, link: params.get('link') || null };
  }
  if (/^\/grants(\?|$)/.test(path))
    return { page: 'grants', userId: params.get('user') || null, runId: params.get('run') || null };
  return { page: 'queue', search };
}

const subscribe = (listener: () => void) => {
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
};

export function useHash(): string {
  return useSyncExternalStore(subscribe, () => window.location.hash);
}

export const runHref = (runId: string) => `#/runs/${encodeURIComponent(runId)}`;
export const callHref = (callId: string) => `#/calls/${encodeURIComponent(callId)}`;
export const turnHref = (turnId: string) => `#/turns/${encodeURIComponent(turnId)}`;
export function grantsHref(filter: { userId?: string | null; runId?: string | null }): string {
  const params = new URLSearchParams();
  if (filter.userId) params.set('user', filter.userId);
  if (filter.runId) params.set('run', filter.runId);
  const search = params.toString();
  return `#/grants${search ? `?${search}` : ''}`;
}
