import { createHash } from 'node:crypto';
import { and, eq, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/tx.js';
import { resourceLinks, resources, runs } from './tables.js';
import type { StoredResource } from './tool-contract.js';

const resourceUri = (sha256: string) => `resource://sha256/${sha256}`;

/** Stores content once per sha256 and links it to a run; storing the same bytes again only adds the link. */
export async function storeResource(
  db: Executor,
  content: Buffer,
  mimeType: string,
  runId: string | null,
): Promise<StoredResource> {
  const sha256 = createHash('sha256').update(content).digest('hex');
  const uri = resourceUri(sha256);
  await db
    .insert(resources)
    .values({ uri, sha256, mimeType, size: content.length, content })
    .onConflictDoNothing();
  if (runId) await db.insert(resourceLinks).values({ uri, runId }).onConflictDoNothing();
  return { uri, sha256, mimeType, size: content.length };
}

export async function readResource(db: Executor, uri: string) {
  const [row] = await db.select().from(resources).where(eq(resources.uri, uri)).limit(1);
  return row ?? null;
}

/**
 * A resource as one run reads it: only when it is linked to that run (the run's own results and
 * tool outputs), null otherwise, so a run cannot open what another run stored.
 */
export async function readRunResource(db: Executor, uri: string, runId: string) {
  const [row] = await db
    .select({
      uri: resources.uri,
      mimeType: resources.mimeType,
      size: resources.size,
      content: resources.content,
    })
    .from(resources)
    .innerJoin(resourceLinks, eq(resourceLinks.uri, resources.uri))
    .where(and(eq(resources.uri, uri), eq(resourceLinks.runId, runId)))
    .limit(1);
  return row ?? null;
}

/** Whether a resource is linked to at least one run that matches `runCondition` (a reader's run scope). */
export async function linkedToRunWhere(db: Executor, uri: string, runCondition: SQL): Promise<boolean> {
  const [row] = await db
    .select({ runId: resourceLinks.runId })
    .from(resourceLinks)
    .innerJoin(runs, eq(runs.id, resourceLinks.runId))
    .where(and(eq(resourceLinks.uri, uri), runCondition))
    .limit(1);
  return row !== undefined;
}
