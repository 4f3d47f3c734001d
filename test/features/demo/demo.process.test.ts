import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect } from 'vitest';
import { graphqlOver, type ServerProcess, startServer } from '../../support/server-process.js';

const ADMIN = 'demo-test-admin-secret-0123';
const ROOT = new URL('../../..', import.meta.url);

interface DemoResult {
  code: number | null;
  output: string;
  runId: string;
}

/** `npm run demo` against the given server, approving by itself after 100 ms. */
async function playDemo(url: string): Promise<DemoResult> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/demo/main.ts',
      '--url',
      url,
      '--token',
      ADMIN,
      '--auto-approve',
      '--approve-after',
      '100',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const runId = /demo finished in [\d.]+ s: run (\S+) /.exec(output)?.[1] ?? '';
  return { code, output, runId };
}

/** One server for the file and the demo played on it once; the tests read that run from different sides. */
const test = base.extend<{ $file: { server: ServerProcess; firstDemo: DemoResult } }>({
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
    async ({}, use) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'ats-demo-test-'));
      const server = await startServer({ ADMIN_TOKEN: ADMIN, DATA_DIR: dataDir, DATABASE_URL: '' }, [
        process.execPath,
        '--import',
        'tsx',
        'src/app/main.ts',
      ]);
      await use(server);
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    { scope: 'file' },
  ],
  firstDemo: [async ({ server }, use) => use(await playDemo(server.url)), { scope: 'file' }],
});

const admin = (server: ServerProcess, query: string, variables?: Record<string, unknown>) =>
  graphqlOver(server.url, ADMIN, query, variables);

const CALLS = `query($id: ID!) { run(id: $id) { status userId profileId
  toolCalls(first: 100) { edges { node { name status decision { approved decidedBy reason } } } } } }`;
const JOURNAL = `query($id: ID!) { journal(runId: $id, first: 1000) { edges { node { type actor } } } }`;

test('the demo plays the writer scenario to a completed run: safe calls at once, the write, the restore and the extension post approved by the approver', {
  timeout: 150_000,
}, async ({ server, firstDemo: demo }) => {
  expect(demo.code, demo.output).toBe(0);

  const { data } = await admin(server, CALLS, { id: demo.runId });
  const approved = {
    approved: true,
    decidedBy: 'approver:alice',
    reason: 'approved by the demo (--auto-approve)',
  };
  expect(data.run.status).toBe('COMPLETED');
  expect([data.run.userId, data.run.profileId]).toEqual(['alice', 'writer']);
  expect(data.run.toolCalls.edges.map((e: { node: unknown }) => e.node)).toEqual([
    { name: 'workspace.list_files', status: 'COMPLETED', decision: null },
    { name: 'chat.read_history_tail', status: 'COMPLETED', decision: null },
    { name: 'skill.list', status: 'COMPLETED', decision: null },
    { name: 'chat.search', status: 'COMPLETED', decision: null },
    { name: 'skill.read', status: 'COMPLETED', decision: null },
    { name: 'workspace.write_file', status: 'COMPLETED', decision: approved },
    { name: 'workspace.create_checkpoint', status: 'COMPLETED', decision: null },
    { name: 'workspace.apply_patch', status: 'COMPLETED', decision: null },
    { name: 'workspace.restore_checkpoint', status: 'COMPLETED', decision: approved },
    { name: 'ext.team-board.post_update', status: 'COMPLETED', decision: approved },
    { name: 'workspace.finish', status: 'COMPLETED', decision: null },
  ]);

  const journal = await admin(server, JOURNAL, { id: demo.runId });
  const safe = ['TOOL_CALL_REQUESTED', 'TOOL_CALL_STARTED', 'TOOL_CALL_COMPLETED'];
  const asked = [
    'TOOL_CALL_REQUESTED',
    'TOOL_CALL_AWAITING_APPROVAL',
    'TOOL_CALL_APPROVED',
    'TOOL_CALL_STARTED',
  ];
  const changed = ['WORKSPACE_CHANGED', 'CHECKPOINT_CREATED', 'TOOL_CALL_COMPLETED'];
  expect(journal.data.journal.edges.map((e: { node: { type: string } }) => e.node.type)).toEqual([
    'RUN_STARTED',
    ...safe, // workspace.list_files
    ...safe, // chat.read_history_tail
    ...safe, // skill.list
    ...safe, // chat.search
    ...safe, // skill.read
    ...asked, // workspace.write_file
    ...changed,
    ...['TOOL_CALL_REQUESTED', 'TOOL_CALL_STARTED', 'CHECKPOINT_CREATED', 'TOOL_CALL_COMPLETED'], // create_checkpoint
    ...['TOOL_CALL_REQUESTED', 'TOOL_CALL_STARTED', ...changed], // apply_patch
    ...asked, // restore_checkpoint
    ...changed,
    ...asked, // ext.team-board.post_update
    'TOOL_CALL_COMPLETED',
    ...['TOOL_CALL_REQUESTED', 'TOOL_CALL_STARTED', 'CHECKPOINT_CREATED', 'TOOL_CALL_COMPLETED'], // finish
    'RUN_COMPLETED',
  ]);
  expect(demo.output).toContain('waiting for approval of workspace.write_file');
  expect(demo.output).toContain('waiting for approval of workspace.restore_checkpoint');
  expect(demo.output).toContain('waiting for approval of ext.team-board.post_update');
  expect(demo.output).toContain(`${server.origin}/console#/runs/${demo.runId}`);
});

test('the restore the approver allowed answers with a diff that undoes the revision', {
  timeout: 150_000,
}, async ({ server, firstDemo: demo }) => {
  const { data } = await admin(
    server,
    `query($id: ID!) { run(id: $id) { toolCalls(first: 100) { edges { node { name
        result { content { __typename ... on DiffRefPart { uri } } } } } } } }`,
    { id: demo.runId },
  );
  const restore = data.run.toolCalls.edges
    .map((e: { node: { name: string } }) => e.node)
    .find((c: { name: string }) => c.name === 'workspace.restore_checkpoint');
  const diff = restore.result.content.find((p: { __typename: string }) => p.__typename === 'DiffRefPart');
  const resource = await admin(server, 'query($uri: String!) { resource(uri: $uri) { text } }', {
    uri: diff.uri,
  });
  expect(resource.data.resource.text).toContain(
    "-Problems: the last reply turns flirtatious, off the tone of a healer's scene; the next one should steer back.\n+Problems: none so far.",
  );
});

test('a second demo against the same server plays a new run of its own', { timeout: 150_000 }, async ({
  server,
  firstDemo: first,
}) => {
  const second = await playDemo(server.url);
  expect([first.code, second.code], second.output).toEqual([0, 0]);
  expect(second.runId).not.toBe(first.runId);
  expect(second.output).toContain('imported/allowed: profile writer');
  expect(second.output).toContain('(0 new)');
});
