import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgresUrl, withDatabase } from '../support/env.js';
import { ServerPair, TEST_TOOLS_SERVER, within } from '../support/failover.js';
import { freshDatabase } from '../support/process-database.js';

/**
 * Two server processes on one Postgres, killed with SIGKILL and started again, over and over,
 * while a client per run writes to the run's workspace through both. Workspace tools keep their
 * effects in the database and run in their call's transaction (with its request, or with its
 * approval), so a crash leaves either no call, which the client's repeat then makes, or a
 * completed one: no run fails, no write is lost or applied twice.
 */
const ADMIN = 'kill-loop-admin-token-0123456789';
const dbName = `ats_kill_loop_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const scratch = mkdtempSync(join(tmpdir(), 'ats-kill-loop-'));
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const pair = new ServerPair({ DATABASE_URL: url, ADMIN_TOKEN: ADMIN, LEASE_MS: '3000' }, ADMIN);
let database: postgres.Sql;
let postgresDown = '';

const RUNS = 6;
const KILLS = 8;

const REQUEST = 'mutation($input: RequestToolCallInput!) { requestToolCall(input: $input) { id status } }';
const APPROVE = 'mutation($id: ID!) { approveToolCall(id: $id) { status } }';
const STATUS = 'query($id: ID!) { toolCall(id: $id) { status } }';

type Kind = 'append' | 'patch' | 'checkpoint';
/** Appends and patches run as soon as they are requested; a checkpoint waits for an approval (policy ASK). */
const KINDS: Kind[] = ['append', 'patch', 'append', 'checkpoint', 'patch'];
const REASONS: Record<Kind, string> = { append: 'WRITE', patch: 'PATCH', checkpoint: 'MANUAL' };
const ANSWERS: Record<Kind, string[]> = {
  append: ['COMPLETED'],
  patch: ['COMPLETED'],
  checkpoint: ['AWAITING_APPROVAL', 'COMPLETED'],
};

/** Each call writes something only it writes: a line of the log, a file, a checkpoint label. */
function requestOf(kind: Kind, key: string) {
  if (kind === 'append')
    return {
      name: 'workspace.write_file',
      arguments: { path: 'output/log.md', content: `${key}\n`, mode: 'append' },
    };
  if (kind === 'patch')
    return {
      name: 'workspace.apply_patch',
      arguments: { patch: `*** Begin Patch\n*** Add File: output/p/${key}.md\n+${key}\n*** End Patch` },
    };
  return { name: 'workspace.create_checkpoint', arguments: { label: key } };
}

/** A call a client made, with what it was answered after every repeat. */
interface Seen {
  key: string;
  kind: Kind;
  id: string;
  /** The request's status, then (for a checkpoint) the approval's. */
  answers: string[];
}

/**
 * One run's client: calls one after another, alternating servers, each with its own idempotency
 * key, so that a repeat after a crash is answered with the recorded call. A checkpoint is approved
 * through the other server; a repeated approval that had committed is a CONFLICT (decided).
 */
async function client(r: number, runId: string, stopped: () => boolean, seen: Seen[]) {
  for (let n = 0; !stopped(); n += 1) {
    const key = `r${r}-${n}`;
    const kind = KINDS[n % KINDS.length]!;
    const via = n + r;
    const requested = await pair.must(via, `request ${key}`, REQUEST, {
      input: { runId, idempotencyKey: key, ...requestOf(kind, key) },
    });
    const { id, status } = requested.requestToolCall;
    const call: Seen = { key, kind, id, answers: [status] };
    seen.push(call);
    if (kind !== 'checkpoint') continue;
    const approved = await pair.ask(via + 1, `approve ${key}`, APPROVE, { id });
    const decided = approved.errors?.[0]?.extensions?.code === 'CONFLICT';
    if (approved.errors && !decided) throw new Error(`approve ${key}: ${JSON.stringify(approved.errors)}`);
    call.answers.push(
      decided
        ? (await pair.must(via + 1, `status of ${key}`, STATUS, { id })).toolCall.status
        : approved.data.approveToolCall.status,
    );
  }
}

/** The server refuses a query with more than 15 aliases, so files are read 12 at a time. */
async function textsOf(r: number, paths: string[]): Promise<string[]> {
  const texts: string[] = [];
  for (let from = 0; from < paths.length; from += 12) {
    const chunk = paths.slice(from, from + 12);
    const { workspace } = await pair.must(
      r,
      `files of workspace ${r}`,
      `query($id: ID!) { workspace(id: $id) {
        ${chunk.map((path, i) => `f${i}: file(path: ${JSON.stringify(path)}) { text }`).join('\n')}
      } }`,
      { id: `ws-kill-${r}` },
    );
    texts.push(...chunk.map((_, i) => workspace[`f${i}`].text));
  }
  return texts;
}

beforeAll(async () => {
  postgresDown = await freshDatabase(admin, dbName);
  if (postgresDown) return;
  database = postgres(url, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await pair.close();
  await database?.end({ timeout: 5 });
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
  rmSync(scratch, { recursive: true, force: true });
});

describe(`two servers killed ${KILLS} times with SIGKILL while ${RUNS} runs write to their workspaces`, () => {
  const runIds: string[] = [];
  const seen: Seen[][] = [];
  let controlRun = '';
  /** The later tests read what the kills left, once they are over. */
  let killed = false;
  const marker = join(scratch, 'control.txt');

  it('answer every call, repeated on the other server when its own died, as completed', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    // Server 0 starts with the test tools, for the control below; every restart is the production server.
    await Promise.all([pair.start(0, TEST_TOOLS_SERVER), pair.start(1)]);
    for (const [pattern, effect] of [
      ['workspace.*', 'ALLOW'],
      ['workspace.create_checkpoint', 'ASK'],
      ['test.*', 'ALLOW'],
    ])
      await pair.must(
        0,
        `policy ${pattern}`,
        `mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "${pattern}", effect: ${effect} }) { id } }`,
      );
    for (let r = 0; r < RUNS; r += 1) {
      const created = await pair.must(
        r,
        `run ${r}`,
        `mutation { createRun(input: { profileId: "p1", workspaceId: "ws-kill-${r}" }) { id } }`,
      );
      runIds.push(created.createRun.id);
      seen.push([]);
    }
    // The control: a tool with effects outside the database, mid-call on server 0 when it is killed first.
    controlRun = (
      await pair.must(0, 'control run', 'mutation { createRun(input: { profileId: "p1" }) { id } }')
    ).createRun.id;
    const control = pair
      .ask(0, 'control call', REQUEST, {
        input: {
          runId: controlRun,
          idempotencyKey: 'control',
          name: 'test.side_effect',
          arguments: { file: marker, marker: 'control', ms: 60_000 },
        },
      })
      .catch(() => null);
    await within('the control call running', 20_000, async () => existsSync(marker));

    let stopping = false;
    const clients = Promise.all(runIds.map((id, r) => client(r, id, () => stopping, seen[r]!)));
    const killing = pair.killRepeatedly(KILLS, RUNS, 0, () => stopping);
    try {
      // Clients run until stopped: one that fails ends the race, and the kills, at once.
      await Promise.race([killing, clients]);
    } finally {
      stopping = true;
      await Promise.allSettled([killing, clients, control]);
      killed = true;
    }
    await Promise.all([killing, clients]);
    await within('every call of the runs finished', 30_000, async () => {
      const [open] = await database`select count(*)::int as n from tool_calls
        where run_id = any(${runIds}) and status not in ('COMPLETED', 'FAILED', 'DENIED')`;
      return open!.n === 0;
    });
    const unexpected = seen.flat().filter((c) => c.answers.join() !== ANSWERS[c.kind].join());
    expect(unexpected).toEqual([]);
  });

  it('fail no run', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    if (!killed) skip('the servers were never killed');
    const runs = await database`select status from runs where id = any(${runIds})`;
    expect(runs.map((r) => r.status)).toEqual(runIds.map(() => 'RUNNING'));
  });

  it('record each call once, completed: none interrupted, none left started, none the clients did not see', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    if (!killed) skip('the servers were never killed');
    const calls = await database`select idempotency_key as key, status, error->>'code' as code
      from tool_calls where run_id = any(${runIds})`;
    expect(calls.map((c) => `${c.key} ${c.status} ${c.code}`).sort()).toEqual(
      seen
        .flat()
        .map((c) => `${c.key} COMPLETED null`)
        .sort(),
    );
  });

  it('leave in each workspace exactly what the completed calls wrote, each once, in order', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    if (!killed) skip('the servers were never killed');
    for (const [r, mine] of seen.entries()) {
      const keysOf = (kind: Kind) => mine.filter((c) => c.kind === kind).map((c) => c.key);
      const { workspace } = await pair.must(
        r,
        `workspace ${r}`,
        `query($id: ID!) { workspace(id: $id) {
          files { path } log: file(path: "output/log.md") { text } checkpoints { callId reason }
        } }`,
        { id: `ws-kill-${r}` },
      );
      const patchedTexts = await textsOf(
        r,
        keysOf('patch').map((key) => `output/p/${key}.md`),
      );
      expect(workspace.log.text).toBe(
        keysOf('append')
          .map((key) => `${key}\n`)
          .join(''),
      );
      expect(workspace.files.map((f: { path: string }) => f.path)).toEqual(
        ['output/log.md', ...keysOf('patch').map((key) => `output/p/${key}.md`)].sort(),
      );
      expect(patchedTexts).toEqual(keysOf('patch').map((key) => `${key}\n`));
      const keyOf = new Map(mine.map((c) => [c.id, c.key]));
      expect(
        workspace.checkpoints.map(
          (c: { callId: string; reason: string }) => `${keyOf.get(c.callId)} ${c.reason}`,
        ),
      ).toEqual(mine.map((c) => `${c.key} ${REASONS[c.kind]}`));
    }
  });

  it('still record a call of a tool with effects outside the database, killed mid-call, as interrupted', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    if (!killed) skip('the servers were never killed');
    const control = await within('the control call recovered', 30_000, async () => {
      const now = await pair.must(
        0,
        'control outcome',
        `{ run(id: "${controlRun}") { status toolCalls(first: 5) { edges { node { status error { code } } } } } }`,
      );
      return now.run.toolCalls.edges[0].node.status !== 'STARTED' && now.run;
    });
    expect(control).toEqual({
      status: 'FAILED',
      toolCalls: { edges: [{ node: { status: 'FAILED', error: { code: 'interrupted' } } }] },
    });
    expect(readFileSync(marker, 'utf8')).toBe('control\n');
  });
});
