import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../core/auth.js';
import type { Logger } from '../../core/logger.js';
import { patternMatches } from '../../core/policy-pattern.js';
import type { IdentityService } from '../identity/index.js';
import type { TokenWatch } from '../tokens/index.js';
import { answerDirectly, answeredDirectly } from './direct-answer.js';
import { jsonRpcError } from './http-errors.js';
import type { ListChanged } from './list-changed.js';
import { gatewayHandlers, gatewayServer } from './mcp-server.js';
import { checkOrigin } from './rules/origin.js';
import { type GatewayContext, GatewaySessions } from './sessions.js';
import { type UpstreamServerDeps, upstreamServer, watchUpstream } from './upstream-server.js';

export interface GatewayHttpOptions {
  allowedOrigins: readonly string[];
  maxBodyBytes: number;
  /** PUBLIC_URL: the base of links and of the resource metadata; else taken from the request's Host. */
  publicUrl: string | undefined;
}

export interface GatewayHttpDeps extends Omit<UpstreamServerDeps, 'consoleUrl'> {
  /** Authenticates the bearer (API or IdP token) and names the IdP in the resource metadata. */
  identity: Pick<IdentityService, 'authenticate' | 'issuer'>;
  tokenWatch: TokenWatch;
  sessions: GatewaySessions;
  listChanged: ListChanged;
  logger: Logger;
}

const METADATA_PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'];

function bearer(value: string | undefined): string | null {
  const match = value ? /^Bearer\s+(\S+)$/i.exec(value.trim()) : null;
  return match ? match[1]! : null;
}

/** Reads at most `max` bytes; null when the body is larger (413). */
async function readBody(req: IncomingMessage, max: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The gateway's HTTP face: `/mcp` (and, through `upstream`, `/mcp/<server>`) over Streamable HTTP,
 * and the RFC 9728 resource metadata. /mcp's tools/list and tools/call are answered directly
 * (direct-answer.ts); every other request gets a fresh SDK server and transport. What a later request
 * needs (the session, its run) is in Postgres, so any process answers any request.
 */
export class GatewayHttp {
  constructor(
    private readonly deps: GatewayHttpDeps,
    private readonly options: GatewayHttpOptions,
  ) {}

  handles(path: string): boolean {
    return path === '/mcp' || path.startsWith('/mcp/') || METADATA_PATHS.includes(path);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const base = this.base(req);
    if (METADATA_PATHS.includes(path)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          resource: `${base}/mcp`,
          // RFC 9728: an MCP host signs its user in at the IdP named here and sends that token.
          authorization_servers: this.deps.identity.issuer ? [this.deps.identity.issuer] : [],
          bearer_methods_supported: ['header'],
          resource_name: 'Agent Tool System MCP gateway',
          resource_documentation: `${base}/console/`,
        }),
      );
      return;
    }
    const origin = checkOrigin(req.headers.origin, this.options.allowedOrigins, this.options.publicUrl);
    if (!origin.ok) return jsonRpcError(res, 403, -32000, origin.message);
    const principal = await this.authenticate(req, res, base);
    if (!principal) return;
    const server = path === '/mcp' ? '' : decodeURIComponent(path.slice('/mcp/'.length));
    await this.serve(req, res, principal, base, server);
  }

  private base(req: IncomingMessage): string {
    return this.options.publicUrl?.replace(/\/$/, '') ?? `http://${req.headers.host ?? 'localhost'}`;
  }

  private async authenticate(
    req: IncomingMessage,
    res: ServerResponse,
    base: string,
  ): Promise<Principal | null> {
    const secret = bearer(req.headers.authorization);
    const outcome = secret ? await this.deps.identity.authenticate(secret) : null;
    if (!outcome || !('principal' in outcome)) {
      jsonRpcError(
        res,
        401,
        -32001,
        outcome
          ? `Unauthorized: ${outcome.refused}`
          : this.deps.identity.issuer
            ? `Unauthorized: send Authorization: Bearer <an AGENT API token, or a token of ${this.deps.identity.issuer}>`
            : 'Unauthorized: send Authorization: Bearer <an AGENT API token>',
        {
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        },
      );
      return null;
    }
    if (outcome.principal.role !== 'AGENT') {
      jsonRpcError(
        res,
        403,
        -32001,
        `Forbidden: the MCP gateway takes AGENT tokens, not ${outcome.principal.role}`,
      );
      return null;
    }
    return outcome.principal;
  }

  /** The profile the calls run under: X-Profile-Id if one of the token's, else the token's only profile. */
  private profileOf(
    req: IncomingMessage,
    principal: Principal,
  ): { ok: true; profileId: string | null } | { ok: false; message: string } {
    const header = req.headers['x-profile-id'];
    if (typeof header === 'string' && header !== '') {
      if (principal.legacyUnbound || principal.profiles.some((p) => patternMatches(p, header)))
        return { ok: true, profileId: header };
      return { ok: false, message: `X-Profile-Id: ${header} is not one of this token's profiles` };
    }
    const only = principal.profiles.length === 1 ? principal.profiles[0]! : null;
    return { ok: true, profileId: only && !/[*?]/.test(only) ? only : null };
  }

  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    principal: Principal,
    base: string,
    server: string,
  ) {
    if (server !== '' && !this.deps.connections.connection(server)?.serverCapabilities())
      return jsonRpcError(res, 404, -32001, `No MCP server ${server} is connected here`);
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = typeof sessionHeader === 'string' ? sessionHeader : null;
    if (req.method === 'DELETE') {
      const session = sessionId ? await this.deps.sessions.find(sessionId, principal, server) : null;
      if (!session) return jsonRpcError(res, 404, -32001, 'Session not found');
      await this.deps.sessions.end(session.id);
      if (server !== '')
        await this.deps.subscriptions.end(session.id, this.deps.connections.connection(server)?.config);
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST' && req.method !== 'GET')
      return jsonRpcError(res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });

    let body: unknown;
    let initialize = false;
    if (req.method === 'POST') {
      const text = await readBody(req, this.options.maxBodyBytes);
      if (text === null)
        return jsonRpcError(
          res,
          413,
          -32000,
          `Payload Too Large: at most ${this.options.maxBodyBytes} bytes (MAX_BODY_BYTES)`,
        );
      try {
        body = JSON.parse(text);
      } catch {
        return jsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
      const messages = Array.isArray(body) ? body : [body];
      if (messages.length === 0 || messages.some((m) => !JSONRPCMessageSchema.safeParse(m).success))
        return jsonRpcError(res, 400, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
      initialize = messages.some((m) => isInitializeRequest(m));
    }

    const profile = this.profileOf(req, principal);
    if (!profile.ok) return jsonRpcError(res, 403, -32001, profile.message);
    const runHeader = req.headers['x-run-id'];
    const ctx: GatewayContext = {
      principal,
      server,
      profileId: profile.profileId,
      session: null,
      runHeader: typeof runHeader === 'string' && runHeader !== '' ? runHeader : null,
      client: GatewaySessions.clientOf(null),
    };
    let newSessionId: string | undefined;
    if (initialize) {
      const init = (Array.isArray(body) ? body : [body]).find((m) => isInitializeRequest(m))!;
      const requested = init.params.protocolVersion;
      const session = await this.deps.sessions.open({
        principal,
        server,
        profileId: profile.profileId,
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
          ? requested
          : LATEST_PROTOCOL_VERSION,
        client: { name: init.params.clientInfo.name, version: init.params.clientInfo.version },
        capabilities: init.params.capabilities as Record<string, unknown>,
      });
      newSessionId = session.id;
    } else if (sessionId) {
      const session = await this.deps.sessions.find(sessionId, principal, server);
      if (!session) return jsonRpcError(res, 404, -32001, 'Session not found');
      ctx.session = session;
      ctx.client = GatewaySessions.clientOf(session);
      ctx.profileId = session.profileId;
    } else if (req.method === 'GET') {
      return jsonRpcError(
        res,
        400,
        -32000,
        'Bad Request: a GET stream needs the Mcp-Session-Id of an initialized session',
      );
    }

    // A host's answers to what an upstream asked it through a request this process, or another, holds.
    const messages = Array.isArray(body) ? body : [body];
    if (
      req.method === 'POST' &&
      messages.every((m) => isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m))
    ) {
      for (const m of messages) await this.deps.answers.answer(m, ctx.session?.id ?? '');
      res.writeHead(202).end();
      return;
    }

    // The request's life: the host going away, or its token being revoked, ends what it holds.
    const ended = new AbortController();
    const release = this.deps.tokenWatch.hold(principal, (reason) => ended.abort(reason));
    const deps = {
      ...this.deps,
      consoleUrl: (id: string) => `${base}/console/#/calls/${id}`,
    };
    if (server === '' && req.method === 'POST' && answeredDirectly(body)) {
      res.once('close', () => {
        release();
        ended.abort('the host closed the request');
      });
      return answerDirectly(req, res, body, gatewayHandlers(deps, ctx, ended.signal), ended.signal);
    }
    const mcp =
      server === '' ? gatewayServer(deps, ctx, ended.signal) : upstreamServer(deps, ctx, ended.signal);
    if (!mcp) {
      release();
      return jsonRpcError(res, 404, -32001, `No MCP server ${server} is connected here`);
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: newSessionId ? () => newSessionId : undefined,
    });
    let unwatch = () => {};
    res.once('close', () => {
      release();
      unwatch();
      ended.abort('the host closed the request');
      void mcp.close();
    });
    await mcp.connect(transport);
    if (req.method === 'GET' && ctx.session) {
      unwatch = this.deps.listChanged.watch(ctx, () => void mcp.sendToolListChanged().catch(() => {}));
      await watchUpstream(this.deps, ctx, mcp, ended.signal);
    }
    await transport.handleRequest(req, res, body);
  }
}
