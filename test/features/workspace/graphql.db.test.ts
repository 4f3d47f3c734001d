import { describe, expect } from 'vitest';
import { sha256Hex } from '../../../src/features/workspace/rules/content.js';
import { workspaceTest as test } from '../../support/fixtures.js';
import { allowWorkspace, WORKSPACE, writeFile } from '../../support/workspace.js';

const query = `query($id: ID!, $prefix: String, $path: String!, $checkpoint: ID) {
  workspace(id: $id) {
    id roots { path writable }
    files(prefix: $prefix) { path size sha256 }
    tree { path name kind size fileCount }
    file(path: $path, checkpoint: $checkpoint) { path size sha256 text base64 }
    checkpoints { number reason label fileCount totalBytes createdBy files { path size } }
  }
}`;

describe('workspace over GraphQL', () => {
  test('files by prefix, one level of the tree, one file, and the checkpoints', async ({
    services,
    gql,
    tokens,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'alpha\n');
    await writeFile(services, run.id, 'output/sub/b.md', 'beta\n');
    await writeFile(services, run.id, 'scratch/c.txt', 'gamma');
    const res = await gql(query, { id: WORKSPACE, prefix: 'output', path: 'output/a.md' }, tokens.VIEWER);
    expect(res.errors).toBeUndefined();
    const workspace = res.data!.workspace;
    expect(workspace.files).toEqual([
      { path: 'output/a.md', size: 6, sha256: sha256Hex(Buffer.from('alpha\n')) },
      { path: 'output/sub/b.md', size: 5, sha256: sha256Hex(Buffer.from('beta\n')) },
    ]);
    expect(workspace.tree).toEqual([
      { path: 'output', name: 'output', kind: 'FOLDER', size: 11, fileCount: 2 },
      { path: 'scratch', name: 'scratch', kind: 'FOLDER', size: 5, fileCount: 1 },
    ]);
    expect(workspace.file).toEqual({
      path: 'output/a.md',
      size: 6,
      sha256: sha256Hex(Buffer.from('alpha\n')),
      text: 'alpha\n',
      base64: Buffer.from('alpha\n').toString('base64'),
    });
    expect(
      workspace.checkpoints.map((c: { number: number; fileCount: number }) => [c.number, c.fileCount]),
    ).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(workspace.checkpoints[0]).toEqual({
      number: 1,
      reason: 'WRITE',
      label: null,
      fileCount: 1,
      totalBytes: 6,
      createdBy: 'tool:workspace.write_file',
      files: [{ path: 'output/a.md', size: 6 }],
    });
  });

  test('a file at a checkpoint, and null for a file or workspace that does not exist', async ({
    services,
    gql,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'old');
    await writeFile(services, run.id, 'output/a.md', 'new', 'replace');
    const at = await gql(
      `query($id: ID!) { workspace(id: $id) { before: file(path: "output/a.md", checkpoint: "1") { text }
        now: file(path: "output/a.md") { text } none: file(path: "output/zzz.md") { text } } }`,
      { id: WORKSPACE },
    );
    expect(at.data!.workspace).toEqual({ before: { text: 'old' }, now: { text: 'new' }, none: null });
    const missing = await gql(`{ workspace(id: "nope") { id } }`);
    expect(missing.data).toEqual({ workspace: null });
  });

  test('an invalid path or an unknown checkpoint is a client error, not an internal one', async ({
    services,
    gql,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'a');
    const traversal = await gql(
      `query($id: ID!) { workspace(id: $id) { file(path: "../etc/passwd") { text } } }`,
      {
        id: WORKSPACE,
      },
    );
    expect(traversal.errors![0]!.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'path',
      reason: 'path_traversal',
    });
    const unknown = await gql(`query($id: ID!) { workspace(id: $id) { diff(from: "7") { unified } } }`, {
      id: WORKSPACE,
    });
    expect(unknown.errors![0]).toMatchObject({
      message: `workspace ${WORKSPACE} has no checkpoint 7`,
      extensions: { code: 'NOT_FOUND' },
    });
  });

  test("readers of u1's runs may read u1's workspace; extensions and anonymous callers may not", async ({
    services,
    gql,
    tokens,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'a');
    // An agent reads a workspace through a run its own token created.
    await gql(`mutation { createRun(input: { workspaceId: "${WORKSPACE}" }) { id } }`, {}, tokens.AGENT);
    const read = `query($id: ID!) { workspace(id: $id) { id } }`;
    for (const role of ['ADMIN', 'HOST', 'APPROVER', 'AGENT', 'VIEWER'] as const) {
      expect((await gql(read, { id: WORKSPACE }, tokens[role])).data).toEqual({
        workspace: { id: WORKSPACE },
      });
    }
    expect((await gql(read, { id: WORKSPACE }, tokens.EXTENSION)).errors![0]!.extensions!.code).toBe(
      'FORBIDDEN',
    );
    expect((await gql(read, { id: WORKSPACE }, null)).errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  test('an agent creates a run, writes through requestToolCall and reads the result back', async ({
    services,
    gql,
    tokens,
  }) => {
    await allowWorkspace(services);
    const created = await gql(
      `mutation { createRun(input: { profileId: "p1", workspaceId: "ws-gql" }) { id workspaceId } }`,
      {},
      tokens.AGENT,
    );
    const runId = created.data!.createRun.id;
    const requested = await gql(
      `mutation($input: RequestToolCallInput!) { requestToolCall(input: $input) {
        status result { isError structured content { ... on TextPart { text } } }
        events { type } } }`,
      {
        input: {
          runId,
          name: 'workspace.write_file',
          arguments: { path: 'output/hello.md', content: 'hello\n', mode: 'create' },
        },
      },
      tokens.AGENT,
    );
    expect(requested.errors).toBeUndefined();
    const call = requested.data!.requestToolCall;
    expect(call.status).toBe('COMPLETED');
    expect(call.result.isError).toBe(false);
    expect(call.result.content).toEqual([
      {
        text: `Created output/hello.md (6 bytes, sha256 ${sha256Hex(Buffer.from('hello\n'))}); checkpoint #1.`,
      },
    ]);
    expect(call.events.map((e: { type: string }) => e.type)).toEqual([
      'TOOL_CALL_REQUESTED',
      'TOOL_CALL_STARTED',
      'WORKSPACE_CHANGED',
      'CHECKPOINT_CREATED',
      'TOOL_CALL_COMPLETED',
    ]);
    const read = await gql(
      `{ workspace(id: "ws-gql") { file(path: "output/hello.md") { text } checkpoints { number runId } } }`,
      {},
      tokens.AGENT,
    );
    expect(read.data!.workspace).toEqual({
      file: { text: 'hello\n' },
      checkpoints: [{ number: 1, runId }],
    });
  });
});
