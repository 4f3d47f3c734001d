import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterEach, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const tsConfigFile = join(repo, 'tsconfig.json');

/** A small tree in the repository's layout that breaks no rule. */
const cleanTree: Record<string, string> = {
  'src/app/main.ts': [
    "import { dispatch } from '../calls/index.js';",
    "import { ChatService } from '../features/chat/index.js';",
    "import { schema } from '../graphql/schema.js';",
    "import { modelTurn } from '../model/service.js';",
    "import type { Services } from './services.js';",
    'export const app = { dispatch, ChatService, schema, modelTurn } as unknown as Services;',
  ].join('\n'),
  'src/app/services.ts': 'export interface Services { chat: unknown }\n',
  'src/core/x.ts': 'export const x = 1;\n',
  'src/db/client.ts': 'export const client = {};\n',
  'src/calls/tool-contract.ts': 'export interface Invocation { input: unknown }\n',
  'src/calls/tool-kit.ts': 'export const objectSchema = {};\n',
  'src/calls/index.ts': "export { dispatch } from './dispatcher.js';\n",
  'src/calls/tables.ts': 'export const runs = {};\nexport type RunRow = { id: string };\n',
  'src/journal/append.ts': "import { x } from '../core/x.js';\nexport const append = x;\n",
  'src/calls/dispatcher.ts': [
    "import type { Invocation } from './tool-contract.js';",
    "import { append } from '../journal/append.js';",
    "import { runs } from './tables.js';",
    'export const dispatch = (call: Invocation) => ({ call, append, runs });',
  ].join('\n'),
  'src/features/chat/index.ts': [
    "export { ChatService } from './service.js';",
    "export { readTool } from './tools/read.js';",
  ].join('\n'),
  'src/features/chat/rules/history.ts':
    "import { x } from '../../../core/x.js';\nexport const history = x;\n",
  'src/features/chat/service.ts': [
    "import { x } from '../../core/x.js';",
    "import { client } from '../../db/client.js';",
    "import { skill } from '../skill/index.js';",
    "import { history } from './rules/history.js';",
    'export const ChatService = { x, client, skill, history };',
  ].join('\n'),
  'src/features/chat/tools/read.ts': [
    "import type { Invocation } from '../../../calls/tool-contract.js';",
    "import { objectSchema } from '../../../calls/tool-kit.js';",
    "import { ChatService } from '../service.js';",
    'export const readTool = (call: Invocation) => ({ objectSchema, ChatService, call });',
  ].join('\n'),
  'src/features/chat/graphql.ts': [
    "import { builder } from '../../graphql/builder.js';",
    "import { ChatService } from './service.js';",
    'export const ChatType = { builder, ChatService };',
  ].join('\n'),
  'src/features/skill/index.ts': "export { skill } from './service.js';\n",
  'src/features/skill/service.ts': 'export const skill = 1;\n',
  'src/graphql/builder.ts': 'export const builder = {};\n',
  'src/graphql/context.ts': [
    "import type { Services } from '../app/services.js';",
    'export interface Context { services: Services }',
  ].join('\n'),
  'src/graphql/schema.ts': [
    "import '../features/chat/graphql.js';",
    "import { builder } from './builder.js';",
    "import type { Context } from './context.js';",
    'export const schema = builder as Context | object;',
  ].join('\n'),
  'src/model/providers/anthropic.ts': "import { x } from '../../core/x.js';\nexport const anthropic = x;\n",
  'src/model/service.ts': [
    "import { ChatService } from '../features/chat/index.js';",
    "import { anthropic } from './providers/anthropic.js';",
    'export const modelTurn = { ChatService, anthropic };',
  ].join('\n'),
  'test/support/helper.ts': 'export const helper = 1;\n',
  'console/src/main.tsx': [
    "import { useState } from 'react';",
    "import { client } from './api/client';",
    "import { reduce } from './logic/queue';",
    'export const App = () => useState(reduce(client));',
  ].join('\n'),
  'console/src/api/client.ts': "import { Client } from 'urql';\nexport const client = Client;\n",
  'console/src/logic/queue.ts':
    "import { age } from './time';\nexport const reduce = (x: unknown) => [x, age];\n",
  'console/src/logic/time.ts': 'export const age = 1;\n',
};

/** The clean tree's `path` with `line` added at the top. */
function adding(path: string, line: string): Record<string, string> {
  return { [path]: `${line}\n${cleanTree[path]}` };
}

let dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  dirs = [];
});

/** Cruises `cleanTree` with `changes` applied, under the repository's rules; answers `rule: from → to`. */
async function violations(changes: Record<string, string> = {}): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'import-rules-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries({ ...cleanTree, ...changes })) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  // Package imports resolve to the repository's installed packages, named as if installed here.
  await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const options = await extractDepcruiseOptions(join(repo, '.dependency-cruiser.cjs'));
  const { output } = await cruise(
    ['src', 'console/src'],
    { ...options, baseDir: dir, preserveSymlinks: true, tsConfig: { fileName: tsConfigFile } },
    {},
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  return (output as ICruiseResult).summary.violations
    .map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`)
    .sort();
}

// Each cruise loads the TypeScript compiler; on a busy 2-core machine that alone can take seconds.
describe('import rules', { timeout: 60_000 }, () => {
  it('pass a tree that follows them', async () => {
    expect(await violations()).toEqual([]);
  });

  it('fail core importing the database', async () => {
    const broken = adding('src/core/x.ts', "import '../db/client.js';");

    expect(await violations(broken)).toEqual(['core-is-pure: src/core/x.ts → src/db/client.ts']);
  });

  it('fail core importing the file system', async () => {
    const broken = adding('src/core/x.ts', "import 'node:fs';");

    expect(await violations(broken)).toEqual(['core-is-pure: src/core/x.ts → fs']);
  });

  it('fail core importing a database driver', async () => {
    const broken = adding('src/core/x.ts', "import 'postgres';");

    expect(await violations(broken)).toEqual([
      'core-is-pure: src/core/x.ts → node_modules/postgres/types/index.d.ts',
    ]);
  });

  it('fail core building a pino logger', async () => {
    const broken = adding('src/core/x.ts', "import { pino } from 'pino';\nexport const logger = pino();");

    expect(await violations(broken)).toEqual(['core-is-pure: src/core/x.ts → node_modules/pino/pino.js']);
  });

  it('let core name the pino Logger type', async () => {
    const typeOnly = adding(
      'src/core/x.ts',
      "import type { pino } from 'pino';\nexport type Logger = pino.Logger;",
    );

    expect(await violations(typeOnly)).toEqual([]);
  });

  it('fail a rules folder importing the database', async () => {
    const broken = adding('src/features/chat/rules/history.ts', "import '../../../db/client.js';");

    expect(await violations(broken)).toEqual([
      'rules-are-pure: src/features/chat/rules/history.ts → src/db/client.ts',
    ]);
  });

  it("fail a rules folder importing its own module's tables", async () => {
    const broken = {
      ...adding('src/features/chat/rules/history.ts', "import '../tables.js';"),
      'src/features/chat/tables.ts': 'export const chats = {};\n',
    };

    expect(await violations(broken)).toEqual([
      'rules-are-pure: src/features/chat/rules/history.ts → src/features/chat/tables.ts',
    ]);
  });

  it("fail a rules folder importing another module's service", async () => {
    const broken = adding('src/features/chat/rules/history.ts', "import '../../skill/service.js';");

    expect(await violations(broken)).toEqual([
      'features-through-index: src/features/chat/rules/history.ts → src/features/skill/service.ts',
      'rules-are-pure: src/features/chat/rules/history.ts → src/features/skill/service.ts',
    ]);
  });

  it('fail a provider adapter importing a feature', async () => {
    const broken = adding('src/model/providers/anthropic.ts', "import '../../features/chat/index.js';");

    expect(await violations(broken)).toEqual([
      'providers-are-pure: src/model/providers/anthropic.ts → src/features/chat/index.ts',
    ]);
  });

  it('fail a runtime cycle between two files', async () => {
    const broken = {
      'src/core/x.ts': "import { y } from './y.js';\nexport const x = 1;\nexport const alsoY = y;\n",
      'src/core/y.ts': "import { x } from './x.js';\nexport const y = x;\n",
    };

    // One violation per cycle, reported from the first file of the cycle in cruise order.
    expect(await violations(broken)).toEqual(['no-circular: src/core/x.ts → src/core/y.ts']);
  });

  it('fail a cycle that a type-only import closes (the type belongs in the file that defines it)', async () => {
    const typeCycle = {
      'src/core/x.ts': "import { y } from './y.js';\nexport type X = { y: number };\nexport const x = y;\n",
      'src/core/y.ts': "import type { X } from './x.js';\nexport const y = 1;\nexport type Y = X;\n",
    };

    expect(await violations(typeCycle)).toEqual(['no-circular: src/core/x.ts → src/core/y.ts']);
  });

  it('fail the console logic importing React', async () => {
    const broken = adding('console/src/logic/time.ts', "import 'react';");

    expect(await violations(broken)).toEqual([
      'console-logic-is-pure: console/src/logic/time.ts → node_modules/react/index.js',
    ]);
  });

  it("fail the console logic importing the console's GraphQL client", async () => {
    const broken = adding('console/src/logic/time.ts', "import '../api/client';");

    expect(await violations(broken)).toEqual([
      'console-logic-is-pure: console/src/logic/time.ts → console/src/api/client.ts',
    ]);
  });

  it("fail a feature importing another feature's internal file", async () => {
    const broken = adding('src/features/chat/service.ts', "import '../skill/service.js';");

    expect(await violations(broken)).toEqual([
      'features-through-index: src/features/chat/service.ts → src/features/skill/service.ts',
    ]);
  });

  it("fail a type-only import of another feature's internal file (types are part of the index too)", async () => {
    const broken = adding(
      'src/features/chat/service.ts',
      "import type { skill } from '../skill/service.js';",
    );

    expect(await violations(broken)).toEqual([
      'features-through-index: src/features/chat/service.ts → src/features/skill/service.ts',
    ]);
  });

  it("fail the model importing a feature's internal file", async () => {
    const broken = adding('src/model/service.ts', "import '../features/chat/service.js';");

    expect(await violations(broken)).toEqual([
      'features-through-index: src/model/service.ts → src/features/chat/service.ts',
    ]);
  });

  it('fail the call lifecycle importing a feature, even through its index', async () => {
    const broken = adding('src/calls/dispatcher.ts', "import '../features/chat/index.js';");

    expect(await violations(broken)).toEqual([
      'lifecycle-does-not-import-features: src/calls/dispatcher.ts → src/features/chat/index.ts',
    ]);
  });

  it("fail a module importing the lifecycle's internal file", async () => {
    const broken = adding('src/features/chat/service.ts', "import '../../calls/dispatcher.js';");

    expect(await violations(broken)).toEqual([
      'calls-through-index: src/features/chat/service.ts → src/calls/dispatcher.ts',
    ]);
  });

  it("fail a type-only import of the lifecycle's internal file", async () => {
    const broken = adding('src/model/service.ts', "import type { dispatch } from '../calls/dispatcher.js';");

    expect(await violations(broken)).toEqual([
      'calls-through-index: src/model/service.ts → src/calls/dispatcher.ts',
    ]);
  });

  it('fail the journal importing the lifecycle, even a table of it', async () => {
    const broken = adding('src/journal/append.ts', "import type { RunRow } from '../calls/tables.js';");

    expect(await violations(broken)).toEqual([
      'journal-knows-no-lifecycle: src/journal/append.ts → src/calls/tables.ts',
    ]);
  });

  it('fail a tool importing the lifecycle beyond the contract', async () => {
    const broken = adding('src/features/chat/tools/read.ts', "import '../../../calls/dispatcher.js';");

    expect(await violations(broken)).toEqual([
      'calls-through-index: src/features/chat/tools/read.ts → src/calls/dispatcher.ts',
      'tools-only-see-the-contract: src/features/chat/tools/read.ts → src/calls/dispatcher.ts',
    ]);
  });

  it('fail a feature service importing the tool contract', async () => {
    const broken = adding(
      'src/features/chat/service.ts',
      "import type { Invocation } from '../../calls/tool-contract.js';",
    );

    expect(await violations(broken)).toEqual([
      'features-use-the-contract-only-in-tools: src/features/chat/service.ts → src/calls/tool-contract.ts',
    ]);
  });

  it('fail a service importing the GraphQL layer', async () => {
    const broken = adding('src/features/chat/service.ts', "import '../../graphql/builder.js';");

    expect(await violations(broken)).toEqual([
      'only-graphql-types-import-graphql: src/features/chat/service.ts → src/graphql/builder.ts',
    ]);
  });

  it('fail a module importing the app', async () => {
    const broken = adding('src/db/client.ts', "import '../app/services.js';");

    expect(await violations(broken)).toEqual(['nothing-imports-app: src/db/client.ts → src/app/services.ts']);
  });

  it('fail the GraphQL context importing the services at runtime, not only their type', async () => {
    const broken = {
      'src/graphql/context.ts':
        "import { Services } from '../app/services.js';\nexport const s = Services;\n",
    };

    expect(await violations(broken)).toEqual([
      'nothing-imports-app: src/graphql/context.ts → src/app/services.ts',
    ]);
  });

  it("fail a module taking another module's table from the db/schema.ts hub", async () => {
    const broken = {
      'src/db/schema.ts': 'export const tools = 1;\n',
      ...adding('src/db/client.ts', "import './schema.js';"),
      ...adding('src/features/chat/service.ts', "import '../../db/schema.js';"),
    };

    expect(await violations(broken)).toEqual([
      'tables-from-their-module: src/features/chat/service.ts → src/db/schema.ts',
    ]);
  });

  it('fail src importing test code', async () => {
    const broken = adding('src/db/client.ts', "import '../../test/support/helper.js';");

    expect(await violations(broken)).toEqual([
      'src-does-not-import-tests: src/db/client.ts → test/support/helper.ts',
    ]);
  });

  it('fail a file that imports nothing and that nothing imports', async () => {
    const broken = { 'src/core/lonely.ts': 'export const lonely = 1;\n' };

    expect(await violations(broken)).toEqual([
      'no-orphans: src/core/lonely.ts → src/core/lonely.ts',
      'reachable-from-entry-points: src/core/lonely.ts → src/core/lonely.ts',
    ]);
  });

  it('fail a file neither entry point reaches, even when it imports others', async () => {
    const broken = { 'src/core/dead.ts': "import { x } from './x.js';\nexport const dead = x;\n" };

    expect(await violations(broken)).toEqual([
      'reachable-from-entry-points: src/core/dead.ts → src/core/dead.ts',
    ]);
  });

  it('fail an import that does not resolve', async () => {
    const broken = adding('src/core/x.ts', "import './missing.js';");

    expect(await violations(broken)).toEqual(['not-to-unresolvable: src/core/x.ts → ./missing.js']);
  });
});
