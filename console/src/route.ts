import { useSyncExternalStore } from 'react';

export type Route = { page: 'queue'; search: string } | { page: 'run'; runId: string };

/** `#/` (optionally `#/?user=…`) is the queue, `#/runs/<id>` a run. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const run = /^\/runs\/([^/?]+)/.exec(path);
  if (run) return { page: 'run', runId: decodeURIComponent(run[1]!) };
  const q = path.indexOf('?');
  return { page: 'queue', search: q === -1 ? '' : path.slice(q) };
}

const subscribe = (listener: () => void) => {
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
};

export function useHash(): string {
  return useSyncExternalStore(subscribe, () => window.location.hash);
}

export const runHref = (runId: string) => `#/runs/${encodeURIComponent(runId)}`;
