import { and, asc, eq, ne } from 'drizzle-orm';
import type { Principal } from '../../../core/auth.js';
import { DomainError, forbidden, notFound } from '../../../core/errors.js';
import { parseInput } from '../../../core/parse-input.js';
import type { Db } from '../../../db/client.js';
import { credentialSecretSchema, type UserCredentialConfig } from '../rules/user-credential.js';
import { mcpServers, upstreamCredentials } from '../tables.js';
import { CallerIdpTokens } from './caller-tokens.js';
import { CredentialKeyError, type CredentialKeyRing } from './key-ring.js';
import { TokenExchange, type TokenExchangeConfig, TokenExchangeError } from './token-exchange.js';

/** What anyone may see of a credential: that it exists, whose, for which server, and when. */
export interface CredentialMetadata {
  userId: string;
  serverName: string;
  source: UserCredentialConfig['mode'];
  keyId: string;
  setAt: Date;
  expiresAt: Date | null;
}

/** What a call finds for its user: the credential, or why there is none (worded for the person). */
export type CredentialLookup = { ok: true; value: string } | { ok: false; reason: string; unreadable?: true };

/** An exchanged token is exchanged again once it has less than this left, so a call does not start with one about to end. */
export const EXCHANGE_MARGIN_MS = 60_000;

const contextOf = (userId: string, server: string, source: string) =>
  `${userId}\u0000${server}\u0000${source}`;

const metadataColumns = {
  userId: upstreamCredentials.userId,
  serverName: upstreamCredentials.serverName,
  source: upstreamCredentials.source,
  keyId: upstreamCredentials.keyId,
  setAt: upstreamCredentials.setAt,
  expiresAt: upstreamCredentials.expiresAt,
};

/** CREDENTIALS_KEY, parsed, and this server's client for token exchange (null: none). */
export interface CredentialSettings {
  keys: CredentialKeyRing;
  exchange: TokenExchangeConfig | null;
}

/**
 * Each user's credentials for upstream MCP servers (issue 29 item 4). Write-only: a user sets or
 * removes their own, everyone sees metadata only, and the value leaves this service only to go
 * upstream with the user's own call.
 */
export class UpstreamCredentials {
  private readonly exchanger: TokenExchange | null;
  /** The port the authenticator of IdP tokens fills (see caller-tokens.ts). */
  readonly callerTokens = new CallerIdpTokens();

  constructor(
    private readonly db: Db,
    private readonly keys: CredentialKeyRing,
    exchange: TokenExchangeConfig | null,
  ) {
    this.exchanger = exchange ? new TokenExchange(exchange) : null;
  }

  /** The caller sets their own STORED credential for a server; it replaces the one before. */
  set(principal: Principal, server: string, secret: string): Promise<CredentialMetadata> {
    return this.setFor(selfOf(principal), server, secret);
  }

  /** The operator's CLI, which runs with the server's own rights, sets one for the user who handed it over. */
  async setFor(userId: string, server: string, secret: string): Promise<CredentialMetadata> {
    const value = parseInput(credentialSecretSchema, secret);
    await this.requireMode(server, 'STORED');
    return this.save(userId, server, { mode: 'STORED', value, expiresAt: null });
  }

  /** The caller's IdP token exchanged now for the server's audience, and kept for their calls. */
  async connect(principal: Principal, server: string): Promise<CredentialMetadata> {
    const userId = selfOf(principal);
    const config = await this.requireMode(server, 'TOKEN_EXCHANGE');
    const subject = this.callerTokens.of(principal);
    if (!subject)
      throw new DomainError(
        'FAILED_PRECONDITION',
        `${server} takes a token exchanged from your IdP sign-in: call this with an IdP token, not an API token`,
      );
    return this.exchangeAndSave(userId, server, config, subject);
  }

  /**
   * Before a call of an MCP tool (`mcp.<server>.<tool>`) is requested for this principal: when the tool's server exchanges tokens and the
   * request carries the user's IdP token, make sure a token valid for EXCHANGE_MARGIN_MS more is
   * stored, since the call may run after an approval, when the host's token has expired. A
   * failed exchange is logged by the caller; the call then finds no credential and says why.
   */
  async prepare(principal: Principal, toolName: string): Promise<void> {
    const subject = this.callerTokens.of(principal);
    const server = /^mcp\.([^.]+)\./.exec(toolName)?.[1];
    if (!subject || !principal.userId || !this.exchanger || !server) return;
    const [row] = await this.db
      .select({ userCredential: mcpServers.userCredential })
      .from(mcpServers)
      .where(eq(mcpServers.name, server));
    const config = row?.userCredential;
    if (config?.mode !== 'TOKEN_EXCHANGE') return;
    const [held] = await this.db
      .select({ expiresAt: upstreamCredentials.expiresAt })
      .from(upstreamCredentials)
      .where(this.rowOf(principal.userId, server, 'TOKEN_EXCHANGE'));
    if (held?.expiresAt && held.expiresAt.getTime() - Date.now() > EXCHANGE_MARGIN_MS) return;
    await this.exchangeAndSave(principal.userId, server, config, subject);
  }

  remove(principal: Principal, server: string): Promise<boolean> {
    return this.removeFor(selfOf(principal), server);
  }

  async removeFor(userId: string, server: string): Promise<boolean> {
    const removed = await this.db
      .delete(upstreamCredentials)
      .where(and(eq(upstreamCredentials.userId, userId), eq(upstreamCredentials.serverName, server)))
      .returning({ userId: upstreamCredentials.userId });
    return removed.length > 0;
  }

  /** The caller's own credentials (metadata). */
  own(principal: Principal): Promise<CredentialMetadata[]> {
    if (!principal.userId) return Promise.resolve([]);
    return this.list({ userId: principal.userId });
  }

  /** Every user's (metadata), for an admin; narrowed to one server or user when given. */
  list(filter: { userId?: string | null; serverName?: string | null } = {}): Promise<CredentialMetadata[]> {
    const where = and(
      filter.userId ? eq(upstreamCredentials.userId, filter.userId) : undefined,
      filter.serverName ? eq(upstreamCredentials.serverName, filter.serverName) : undefined,
    );
    return this.db
      .select(metadataColumns)
      .from(upstreamCredentials)
      .where(where)
      .orderBy(asc(upstreamCredentials.serverName), asc(upstreamCredentials.userId));
  }

  /** What a call of this user to this server sends, by the server's mode. */
  async lookup(
    userId: string | null,
    server: string,
    config: UserCredentialConfig,
  ): Promise<CredentialLookup> {
    const [row] = userId
      ? await this.db
          .select()
          .from(upstreamCredentials)
          .where(this.rowOf(userId, server, config.mode))
      : [];
    if (!userId || !row) return { ok: false, reason: 'none is set' };
    if (row.expiresAt && row.expiresAt.getTime() <= Date.now())
      return { ok: false, reason: `the token exchanged for it expired at ${row.expiresAt.toISOString()}` };
    try {
      return { ok: true, value: this.keys.open(row, contextOf(userId, server, row.source)) };
    } catch (error) {
      if (!(error instanceof CredentialKeyError)) throw error;
      return { ok: false, reason: error.message, unreadable: true };
    }
  }

  /**
   * Re-encrypts every credential not under the current key with it (after a new key was put first
   * in CREDENTIALS_KEY). Each row is rewritten only if it is still the one read, so a credential
   * set meanwhile is left as its writer left it. Returns how many were re-encrypted.
   */
  async reencrypt(): Promise<number> {
    const current = this.keys.currentId;
    if (current === null) throw new DomainError('FAILED_PRECONDITION', 'CREDENTIALS_KEY is not set');
    const stale = await this.db
      .select()
      .from(upstreamCredentials)
      .where(ne(upstreamCredentials.keyId, current));
    let count = 0;
    for (const row of stale) {
      const context = contextOf(row.userId, row.serverName, row.source);
      const sealed = this.keys.seal(this.keys.open(row, context), context);
      const updated = await this.db
        .update(upstreamCredentials)
        .set(sealed)
        .where(
          and(
            eq(upstreamCredentials.userId, row.userId),
            eq(upstreamCredentials.serverName, row.serverName),
            eq(upstreamCredentials.keyId, row.keyId),
            eq(upstreamCredentials.setAt, row.setAt),
          ),
        )
        .returning({ userId: upstreamCredentials.userId });
      count += updated.length;
    }
    return count;
  }

  private async exchangeAndSave(
    userId: string,
    server: string,
    config: UserCredentialConfig,
    subject: NonNullable<ReturnType<CallerIdpTokens['of']>>,
  ): Promise<CredentialMetadata> {
    if (!this.exchanger)
      throw new DomainError(
        'FAILED_PRECONDITION',
        'token exchange is not configured on this server (TOKEN_EXCHANGE_CLIENT_ID and TOKEN_EXCHANGE_CLIENT_SECRET)',
      );
    let exchanged: Awaited<ReturnType<TokenExchange['exchange']>>;
    try {
      exchanged = await this.exchanger.exchange(subject, { audience: config.audience!, scope: config.scope });
    } catch (error) {
      if (error instanceof TokenExchangeError) throw new DomainError('FAILED_PRECONDITION', error.message);
      throw error;
    }
    return this.save(userId, server, {
      mode: 'TOKEN_EXCHANGE',
      value: exchanged.token,
      expiresAt: exchanged.expiresAt,
    });
  }

  private async save(
    userId: string,
    server: string,
    credential: { mode: UserCredentialConfig['mode']; value: string; expiresAt: Date | null },
  ): Promise<CredentialMetadata> {
    let sealed: ReturnType<CredentialKeyRing['seal']>;
    try {
      sealed = this.keys.seal(credential.value, contextOf(userId, server, credential.mode));
    } catch (error) {
      if (error instanceof CredentialKeyError) throw new DomainError('FAILED_PRECONDITION', error.message);
      throw error;
    }
    const values = { ...sealed, source: credential.mode, expiresAt: credential.expiresAt, setAt: new Date() };
    const [row] = await this.db
      .insert(upstreamCredentials)
      .values({ userId, serverName: server, ...values })
      .onConflictDoUpdate({
        target: [upstreamCredentials.userId, upstreamCredentials.serverName],
        set: values,
      })
      .returning(metadataColumns);
    return row!;
  }

  private async requireMode(
    server: string,
    mode: UserCredentialConfig['mode'],
  ): Promise<UserCredentialConfig> {
    const [row] = await this.db
      .select({ userCredential: mcpServers.userCredential })
      .from(mcpServers)
      .where(eq(mcpServers.name, server));
    if (!row) throw notFound(`no MCP server named ${server}`);
    const config = row.userCredential;
    if (config?.mode !== mode) {
      const how =
        config === null
          ? 'takes no per-user credential'
          : config.mode === 'STORED'
            ? 'takes a credential you set (setUpstreamCredential)'
            : 'takes a token exchanged from your IdP sign-in (connectUpstreamCredential)';
      throw new DomainError('FAILED_PRECONDITION', `the MCP server ${server} ${how}`);
    }
    return config;
  }

  private rowOf(userId: string, server: string, source: UserCredentialConfig['mode']) {
    return and(
      eq(upstreamCredentials.userId, userId),
      eq(upstreamCredentials.serverName, server),
      eq(upstreamCredentials.source, source),
    );
  }
}

/** A credential is always the caller's own: a token that acts for no user has none to set. */
function selfOf(principal: Principal): string {
  if (!principal.userId)
    throw forbidden(
      `a ${principal.role} token acts for no user, so it has no upstream credentials of its own`,
    );
  return principal.userId;
}
