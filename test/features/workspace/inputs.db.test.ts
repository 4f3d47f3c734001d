import { describe, expect } from 'vitest';
import type { Principal } from '../../../src/core/auth.js';
import { MAX_INPUT_FILES } from '../../../src/features/workspace/rules/inputs.js';
import { dbTest as test } from '../../support/fixtures.js';
import { admin } from '../../support/lifecycle.js';

const PUT = `mutation($id: ID!, $files: [WorkspaceInputFile!]!, $owner: String) {
  putWorkspaceInputs(workspaceId: $id, files: $files, ownerUserId: $owner) {
    paths
    checkpoint { number reason createdBy fileCount }
    workspace { id ownerUserId files { path size } }
  }
}`;

const READ = `query($id: ID!, $path: String!) { workspace(id: $id) { file(path: $path) { text base64 } } }`;

const codes = (result: { errors?: Array<{ extensions?: { code?: string } }> }) =>
  (result.errors ?? []).map((e) => e.extensions?.code);

/** Bound to alice only: the scope a token not bound to bob has. */
const aliceApprover: Principal = { ...admin, name: 'alice-approver', role: 'APPROVER', users: ['alice'] };

describe('putWorkspaceInputs', () => {
  test('a host puts files under inputs/ as one IMPORT checkpoint, journaled with the host as actor', async ({
    services,
    gql,
    tokens,
  }) => {
    const res = await gql(
      PUT,
      {
        id: 'ws-in',
        owner: 'bob',
        files: [
          { path: 'inputs/brief.md', text: '# Brief\n' },
          { path: 'inputs/data/table.bin', base64: Buffer.from([0, 1, 2]).toString('base64') },
        ],
      },
      tokens.HOST,
    );
    expect(res).toEqual({
      data: {
        putWorkspaceInputs: {
          paths: ['inputs/brief.md', 'inputs/data/table.bin'],
          checkpoint: { number: 1, reason: 'IMPORT', createdBy: 'host:test-host', fileCount: 2 },
          workspace: {
            id: 'ws-in',
            ownerUserId: 'bob',
            files: [
              { path: 'inputs/brief.md', size: 8 },
              { path: 'inputs/data/table.bin', size: 3 },
            ],
          },
        },
      },
    });
    const read = await gql(READ, { id: 'ws-in', path: 'inputs/brief.md' }, tokens.HOST);
    expect(read.data!.workspace.file.text).toBe('# Brief\n');
    const events = await services.journal.read({ limit: 100 });
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['workspace_changed', 'host:test-host'],
      ['checkpoint_created', 'host:test-host'],
    ]);
  });

  test('putting a file again replaces it in a new checkpoint; other inputs stay', async ({ gql, tokens }) => {
    await gql(PUT, {
      id: 'w',
      files: [
        { path: 'inputs/a.md', text: 'one' },
        { path: 'inputs/b.md', text: 'b' },
      ],
    });
    const res = await gql(PUT, { id: 'w', files: [{ path: 'inputs/a.md', text: 'two' }] }, tokens.HOST);
    expect(res.data!.putWorkspaceInputs.checkpoint).toMatchObject({ number: 2, fileCount: 2 });
    expect((await gql(READ, { id: 'w', path: 'inputs/a.md' })).data!.workspace.file.text).toBe('two');
  });

  test.for([
    ['../etc/passwd', 'path_traversal'],
    ['inputs/../../x', 'path_traversal'],
    ['/inputs/a.md', 'path_absolute'],
    ['output/a.md', 'not_an_input'],
    ['inputs/../output/a.md', 'not_an_input'],
    ['notes.md', 'not_an_input'],
  ])(
    '%s is BAD_USER_INPUT (%s) and nothing is written',
    async ([path, reason], { services, gql, tokens }) => {
      const res = await gql(
        PUT,
        {
          id: 'w',
          files: [
            { path: 'inputs/ok.md', text: 'fine' },
            { path, text: 'x' },
          ],
        },
        tokens.HOST,
      );
      expect(res.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^files\[1\]\.path: /),
          extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', index: 1, reason }),
        }),
      ]);
      expect(await services.workspaces.store.get('w')).toBeNull();
    },
  );

  test('a file where a folder of inputs is, is CONFLICT naming its index', async ({ gql }) => {
    await gql(PUT, { id: 'w', files: [{ path: 'inputs/a/b.md', text: 'b' }] });
    const res = await gql(PUT, { id: 'w', files: [{ path: 'inputs/a', text: 'x' }] });
    expect(codes(res)).toEqual(['CONFLICT']);
    expect(res.errors![0]!.extensions).toMatchObject({ index: 0 });
  });

  test('content given both as text and base64, or as neither, is BAD_USER_INPUT', async ({ gql }) => {
    const both = await gql(PUT, { id: 'w', files: [{ path: 'inputs/a', text: 'x', base64: 'eA==' }] });
    const neither = await gql(PUT, { id: 'w', files: [{ path: 'inputs/a' }] });
    expect([codes(both), codes(neither)]).toEqual([['BAD_USER_INPUT'], ['BAD_USER_INPUT']]);
  });

  test(`more than ${MAX_INPUT_FILES} files is BAD_USER_INPUT`, async ({ gql, tokens }) => {
    const files = Array.from({ length: MAX_INPUT_FILES + 1 }, (_, i) => ({
      path: `inputs/${i}.md`,
      text: '',
    }));
    expect(codes(await gql(PUT, { id: 'w', files }, tokens.HOST))).toEqual(['BAD_USER_INPUT']);
  });

  test("a host feeding one user's inputs into another user's workspace is CONFLICT and writes nothing", async ({
    services,
    gql,
    tokens,
  }) => {
    await gql(PUT, { id: 'bobs', owner: 'bob', files: [{ path: 'inputs/a.md', text: 'bob' }] });
    const res = await gql(
      PUT,
      { id: 'bobs', owner: 'alice', files: [{ path: 'inputs/a.md', text: 'alice' }] },
      tokens.HOST,
    );
    expect(codes(res)).toEqual(['CONFLICT']);
    expect((await services.workspaces.store.checkpoints('bobs')).length).toBe(1);
  });

  test("a caller not bound to the workspace's user finds no workspace, exactly as for a missing one", async ({
    services,
    gql,
  }) => {
    await gql(PUT, { id: 'bobs', owner: 'bob', files: [{ path: 'inputs/a.md', text: 'bob' }] });
    const put = (id: string, owner: string | null) =>
      services.workspaces.admin
        .putInputs(
          aliceApprover,
          services.workspaces.admin.operatorSession(id, 'approver:alice'),
          [{ path: 'inputs/a.md', content: Buffer.from('x') }],
          owner,
        )
        .catch((error: { code: string; message: string }) => [error.code, error.message]);
    expect(await put('bobs', null)).toEqual(['NOT_FOUND', 'no workspace bobs']);
    expect(await put('new-for-bob', 'bob')).toEqual(['NOT_FOUND', 'no workspace new-for-bob']);
    expect((await services.workspaces.store.checkpoints('bobs')).length).toBe(1);
  });

  test.for(['AGENT', 'APPROVER', 'VIEWER', 'EXTENSION'] as const)(
    'a %s token is FORBIDDEN',
    async (role, { gql, tokens }) => {
      const res = await gql(PUT, { id: 'w', files: [{ path: 'inputs/a.md', text: 'x' }] }, tokens[role]);
      expect(codes(res)).toEqual(['FORBIDDEN']);
    },
  );
});
