import { createClient } from 'graphql-ws';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Database, openDatabase } from '../../src/db/client.js';
import { appendEvents } from '../../src/journal/append.js';
import { testPostgresUrl, withDatabase } from '../support/env.js';
import { waitFor } from '../support/lifecycle.js';
import { freshDatabase } from '../support/process-database.js';
import { graphqlOver, type ServerProcess, startServer } from '../support/server-process.js';

/**
 * How a follower on one server process hears of events another process commits: no NOTIFY in the
 * writer's transaction, one per process after its commits, and the reads that cover a wake-up
 * that never came. Server `quiet` never reads on its own (an hour between safety reads), so
 * whatever reaches its subscribers came through a wake-up.
 */
const ADMIN = 'wake-admin-token-0123456789abc';
const dbName = `ats_wake_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const servers: ServerProcess[] = [];
let postgresDown = '';
let writer: Database | null = null;

async function start(safetyPollMs: number) {
  const server = await startServer(
    { DATABASE_URL: url, ADMIN_TOKEN: ADMIN, JOURNAL_SAFETY_POLL_MS: String(safetyPollMs) },
    ['node_modules/.bin/tsx', 'test/support/test-server.ts'],
  );
  servers.push(server);
  return server;
}

const gql = (server: ServerProcess, query: string) => graphqlOver(server.url, ADMIN, query);
const until = <T>(probe: () => Promise<T | false | null | undefined>) => waitFor(probe, 30_000, 50);

async function newRun(server: ServerProcess) {
  return (await gql(server, 'mutation { createRun(input: { profileId: "p1" }) { id } }')).data.createRun
    .id as string;
}

/** The types a journal subscription on `server` receives for one run, replayed from the start. */
function follow(server: ServerProcess, runId: string) {
  const client = createClient({
    url: server.url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${ADMIN}` },
  });
  const types: string[] = [];
  client.subscribe(
    { query: `subscription { journalEvents(runId: "${runId}", afterSeq: "0") { type } }` },
    {
      next: (value) => types.push((value.data as { journalEvents: { type: string } }).journalEvents.type),
      error: () => {},
      complete: () => {},
    },
  );
  return { types, close: () => client.dispose() };
}

/** An event committed by a process that tells nobody: a writer killed right after its commit. */
async function appendUnannounced(runId: string) {
  writer ??= await openDatabase({ driver: 'postgres', url, max: 1 });
  await writer.db.transaction((tx) =>
    appendEvents(tx, [{ type: 'checkpoint_created', runId, actor: 'test', payload: { unannounced: true } }]),
  );
}

beforeAll(async () => {
  postgresDown = await freshDatabase(admin, dbName);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.kill()));
  await writer?.close();
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
});

describe('waking journal followers across processes', () => {
  let quiet: ServerProcess;
  let polling: ServerProcess;

  it('a follower on another process gets a committed event without any periodic read', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    quiet = await start(3_600_000);
    polling = await start(200);
    const runId = await newRun(polling);
    const follower = follow(quiet, runId);
    // The replay of the run's first event says the subscription is live.
    await until(async () => follower.types.includes('RUN_STARTED'));
    await gql(polling, `mutation { cancelRun(id: "${runId}") { status } }`);
    await until(async () => follower.types.includes('RUN_CANCELLED'));
    await follower.close();
    expect(follower.types).toEqual(['RUN_STARTED', 'RUN_CANCELLED']);
  });

  it('an event whose writer sent no wake-up reaches followers by the safety read, and by the read after a LISTEN reconnects', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const runId = await newRun(polling);
    const onPolling = follow(polling, runId);
    const onQuiet = follow(quiet, runId);
    await until(async () => onPolling.types.length === 1 && onQuiet.types.length === 1);
    await appendUnannounced(runId);
    await until(async () => onPolling.types.length === 2);
    // Nothing woke `quiet` and it reads on its own only hourly: the event waits for its next wake-up.
    expect(onQuiet.types).toEqual(['RUN_STARTED']);
    // Its LISTEN connection drops; re-established, it reads what it may have missed.
    await admin.unsafe(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${dbName}' and query ilike 'listen %'`,
    );
    await until(async () => onQuiet.types.length === 2);
    await Promise.all([onPolling.close(), onQuiet.close()]);
    expect(onPolling.types).toEqual(['RUN_STARTED', 'CHECKPOINT_CREATED']);
    expect(onQuiet.types).toEqual(['RUN_STARTED', 'CHECKPOINT_CREATED']);
  });
});
