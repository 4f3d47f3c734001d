import type { IncomingMessage, ServerResponse } from 'node:http';
import { type StaticAsset, sendAsset } from './asset.js';
import {
  buildStamp,
  type ConsoleBuild,
  defaultConsoleDir,
  NOT_BUILT_PAGE,
  readConsoleBuild,
} from './console-files.js';
import { GRAPHIQL_PREFIX, graphiqlAsset } from './graphiql.js';
import { pageHeaders, setPageHeaders } from './page-headers.js';
import { type ConsoleSignIn, connectSourcesOf, SIGN_IN_PATH, sendSignIn } from './sign-in.js';

export interface ConsoleHandlerOptions {
  /** The built console (console/dist of this repository by default). */
  dir?: string;
  /** Sign-in with the company's IdP; absent or null: API tokens only. */
  signIn?: ConsoleSignIn | null;
}

/** Answers a request it serves and returns true; returns false for anything else (the API). */
export type StaticHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

function send(req: IncomingMessage, res: ServerResponse, asset: StaticAsset): void {
  sendAsset(req, res, asset).catch((error: unknown) => res.destroy(error as Error));
}

const notFound = (res: ServerResponse) =>
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');

async function sendGraphiqlFile(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  const asset = await graphiqlAsset(pathname);
  if (asset) await sendAsset(req, res, asset);
  else notFound(res);
}

/** The path of a request target; null for one no URL parser takes (`//`), which is not a page here. */
function pathnameOf(target: string | undefined): string | null {
  try {
    return new URL(target ?? '/', 'http://server').pathname;
  } catch {
    return null;
  }
}

/** The console's mount points: `/` and `/console` show the same page (it routes by the URL hash). */
function consolePath(pathname: string): string | null {
  if (pathname === '/' || pathname === '/console') return '';
  return pathname.startsWith('/console/') ? pathname.slice('/console/'.length) : null;
}

/**
 * The console's files and GraphiQL's, from memory. A build that is missing, or newer than the one
 * read, is read on the next page load, so `npm run build:console` next to a running server is enough.
 */
export function createConsoleHandler(options: ConsoleHandlerOptions = {}): StaticHandler {
  const dir = options.dir ?? defaultConsoleDir();
  const signIn = options.signIn ?? null;
  const consoleHeaders = pageHeaders(connectSourcesOf(signIn));
  let build: ConsoleBuild | null = null;
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const pathname = pathnameOf(req.url);
    if (pathname === null) return false;
    if (pathname === SIGN_IN_PATH) {
      sendSignIn(req, res, signIn);
      return true;
    }
    if (pathname.startsWith(GRAPHIQL_PREFIX)) {
      setPageHeaders(res);
      sendGraphiqlFile(req, res, pathname).catch((error: unknown) => res.destroy(error as Error));
      return true;
    }
    const path = consolePath(pathname);
    if (path === null) return false;
    setPageHeaders(res, consoleHeaders);
    // Looked at again for each page load, so a rebuild next to a running server is picked up.
    if (!build || (path === '' && build.stamp !== buildStamp(dir))) build = readConsoleBuild(dir);
    if (!build) {
      res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : NOT_BUILT_PAGE);
      return true;
    }
    const file = build.files.get(path);
    if (file) {
      send(req, res, file);
      return true;
    }
    if (path.startsWith('assets/')) {
      // A stale hash from an older build: a 404, not index.html served as script.
      notFound(res);
      return true;
    }
    send(req, res, build.index);
    return true;
  };
}
