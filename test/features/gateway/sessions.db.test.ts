import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { createLogger } from '../../../src/app/logger.js';
import type { Principal } from '../../../src/core/auth.js';
import { GatewaySessions } from '../../../src/features/gateway/sessions.js';
import { mcpSessions } from '../../../src/features/gateway/tables.js';
import { Invalidations } from '../../../src/journal/invalidations.js';
import { gatewayTest as test } from '../../support/mcp-gateway.js';

describe('MCP sessions kept per process', () => {
  test('a session ended through one process is refused at once by another that kept it', async ({
    services,
    tokens,
    mcpUrl,
    host,
  }) => {
    const changes = new Invalidations(services.database, createLogger('silent'));
    await changes.start();
    try {
      const other = new GatewaySessions(services.database.db, services.runs, changes);
      const sessionId = (host.transport as { sessionId?: string }).sessionId!;
      const [row] = await services.database.db
        .select()
        .from(mcpSessions)
        .where(eq(mcpSessions.id, sessionId));
      const principal = { tokenId: row!.tokenId } as Principal;
      expect((await other.find(sessionId, principal, ''))?.id).toBe(sessionId);
      // Kept: another token or endpoint still does not get it.
      expect(await other.find(sessionId, { tokenId: 'another' } as Principal, '')).toBeNull();
      expect(await other.find(sessionId, principal, 'ref')).toBeNull();

      const ended = await fetch(mcpUrl, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tokens.AGENT}`, 'mcp-session-id': sessionId },
      });
      expect(ended.status).toBe(200);
      expect(await other.find(sessionId, principal, '')).toBeNull();
    } finally {
      await changes.stop();
    }
  });
});
