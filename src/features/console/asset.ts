import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

type Encoding = 'br' | 'gzip';

/** Below this a compressed body saves less than its headers cost. */
const MIN_COMPRESSIBLE_BYTES = 1024;
/** Brotli's best quality takes seconds on megabytes (GraphiQL is 9 MB): large files get a faster one. */
const LARGE_BYTES = 1024 * 1024;

const compressible = /^(text\/|application\/(javascript|json|manifest\+json|wasm)|image\/svg\+xml)/;

/**
 * One file served from memory. Each encoding is compressed once, on the first request that accepts
 * it, and kept: a restart pays it again, a request never does twice.
 */
export class StaticAsset {
  readonly etag: string;
  private readonly encoded = new Map<Encoding, Promise<Buffer>>();

  constructor(
    readonly body: Buffer,
    readonly contentType: string,
    readonly cacheControl: string,
  ) {
    this.etag = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  }

  get compressible(): boolean {
    return this.body.length >= MIN_COMPRESSIBLE_BYTES && compressible.test(this.contentType);
  }

  encode(encoding: Encoding): Promise<Buffer> {
    let pending = this.encoded.get(encoding);
    if (!pending) {
      pending = encoding === 'br' ? this.brotli() : gzipAsync(this.body, { level: 9 });
      this.encoded.set(encoding, pending);
    }
    return pending;
  }

  private brotli(): Promise<Buffer> {
    return brotli(this.body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: this.body.length > LARGE_BYTES ? 6 : 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: this.body.length,
      },
    });
  }
}

/** The best encoding the client accepts (q=0 refuses one), brotli first. */
export function preferredEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const item of acceptEncoding.split(',')) {
    const [name = '', ...params] = item.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return null;
}

/** Whether If-None-Match names this asset's validator, in any of its encodings (a weak comparison). */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, '').replace(/"/g, ''))
    .some((tag) => tag === etag || tag.startsWith(`${etag}-`));
}

/** Answers GET or HEAD with the asset: 304 on a matching validator, else the best accepted encoding. */
export async function sendAsset(
  req: IncomingMessage,
  res: ServerResponse,
  asset: StaticAsset,
): Promise<void> {
  const encoding = asset.compressible ? preferredEncoding(req.headers['accept-encoding']) : null;
  const etag = `"${encoding ? `${asset.etag}-${encoding === 'br' ? 'br' : 'gz'}` : asset.etag}"`;
  const headers: Record<string, string | number> = {
    'cache-control': asset.cacheControl,
    etag,
    'x-content-type-options': 'nosniff',
  };
  if (asset.compressible) headers.vary = 'Accept-Encoding';
  if (notModified(req.headers['if-none-match'], asset.etag)) {
    res.writeHead(304, headers).end();
    return;
  }
  const body = encoding ? await asset.encode(encoding) : asset.body;
  headers['content-type'] = asset.contentType;
  headers['content-length'] = body.length;
  if (encoding) headers['content-encoding'] = encoding;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}
