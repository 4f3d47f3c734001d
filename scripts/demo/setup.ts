import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Api, Json } from './api.js';
import { EXTENSION_ID } from './extension.js';

export const PROFILE = 'writer';
export const SKILL = 'internal-comms';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** The writer profile's rules: the tool families it works with, and a person before each write and restore. */
const RULES = [
  { toolPattern: 'workspace.*', effect: 'ALLOW', reason: 'writers work in their workspace' },
  { toolPattern: 'chat.*', effect: 'ALLOW', reason: 'writers read the chat they write about' },
  { toolPattern: 'skill.*', effect: 'ALLOW', reason: 'writers follow the house style guides' },
  { toolPattern: `ext.${EXTENSION_ID}.*`, effect: 'ALLOW', reason: 'writers post to the team board' },
  { toolPattern: 'workspace.write_file', effect: 'ASK', reason: 'a person checks every write' },
  { toolPattern: 'workspace.restore_checkpoint', effect: 'ASK', reason: 'a person checks every restore' },
] as const;

export interface Tokens {
  agent: string;
  approver: string;
  viewer: string;
  extension: string;
  /** Ids of the tokens only the demo itself uses, revoked when it ends. */
  internal: string[];
}

export interface Prepared {
  chatId: string;
  tokens: Tokens;
  /** What was created or found, for the log. */
  notes: string[];
}

/** Everything the scenario needs on the server; safe to repeat (imports replace, rules are added once). */
export async function prepare(admin: Api, user: string): Promise<Prepared> {
  const notes: string[] = [];
  const chatId = `demo-seraphina-${user}`;
  const chat = await admin.request(
    `mutation($input: ImportChatInput!) { importChat(input: $input) { id messageCount } }`,
    {
      input: {
        id: chatId,
        fileName: 'Seraphina - 2023-5-12 @21h 32m 29s 224ms.jsonl',
        jsonl: await readFile(join(FIXTURES, 'seraphina.jsonl'), 'utf8'),
        ownerUserId: user,
        replace: true,
      },
    },
  );
  notes.push(`chat ${chat.importChat.id} (${chat.importChat.messageCount} messages, owned by ${user})`);

  const skill = await admin.request(
    'mutation($skills: [SkillFolderInput!]!) { importSkills(skills: $skills) { name } }',
    { skills: [{ folderName: SKILL, files: await skillFiles(join(FIXTURES, 'skills', SKILL)) }] },
  );
  notes.push(`skill ${skill.importSkills.map((s: Json) => s.name).join(', ')}`);

  const skillRules = await admin.request<Json>(
    'query($p: String) { skillRules(profileId: $p) { pattern effect profileId } }',
    { p: PROFILE },
  );
  if (!skillRules.skillRules.some((r: Json) => r.profileId === PROFILE && r.pattern === SKILL)) {
    await admin.request('mutation($input: SkillRuleInput!) { setSkillRule(input: $input) { id } }', {
      input: { profileId: PROFILE, pattern: SKILL, effect: 'VISIBLE', reason: 'the house style for updates' },
    });
  }

  const existing = await admin.request<Json>(
    'query($p: String) { policyRules(layer: PROFILE, scopeId: $p) { toolPattern effect } }',
    { p: PROFILE },
  );
  const has = (r: (typeof RULES)[number]) =>
    existing.policyRules.some((e: Json) => e.toolPattern === r.toolPattern && e.effect === r.effect);
  const added = RULES.filter((r) => !has(r));
  for (const rule of added) {
    await admin.request('mutation($input: PolicyRuleInput!) { setPolicyRule(input: $input) { id } }', {
      input: { layer: 'PROFILE', scopeId: PROFILE, ...rule },
    });
  }
  notes.push(
    `profile ${PROFILE}: ${RULES.map((r) => `${r.effect} ${r.toolPattern}`).join(', ')} (${added.length} new)`,
  );
  return { chatId, tokens: await createTokens(admin, user), notes };
}

async function createTokens(admin: Api, user: string): Promise<Tokens> {
  const create = async (input: Record<string, unknown>) =>
    (
      await admin.request(
        'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token apiToken { id } } }',
        { input },
      )
    ).createApiToken as { token: string; apiToken: { id: string } };
  // The approver's name is the actor its decisions are journaled under (`approver:<name>`).
  const approver = await create({ name: user, role: 'APPROVER', users: [user] });
  const viewer = await create({ name: `${user}-viewer`, role: 'VIEWER', users: [user] });
  const agent = await create({ name: 'demo-writer-agent', role: 'AGENT', userId: user, profiles: [PROFILE] });
  const extension = await create({ name: EXTENSION_ID, role: 'EXTENSION', extensionId: EXTENSION_ID });
  return {
    agent: agent.token,
    approver: approver.token,
    viewer: viewer.token,
    extension: extension.token,
    internal: [agent.apiToken.id, extension.apiToken.id],
  };
}

/** Every file of a skill folder, with `/`-separated paths relative to it. */
async function skillFiles(folder: string): Promise<Array<{ path: string; content: string }>> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  files.sort();
  return Promise.all(
    files.map(async (file) => ({
      path: relative(folder, file).split(sep).join('/'),
      content: await readFile(file, 'utf8'),
    })),
  );
}

export async function revokeInternalTokens(admin: Api, tokens: Tokens): Promise<void> {
  for (const id of tokens.internal) {
    await admin.request('mutation($id: ID!) { revokeApiToken(id: $id) }', { id });
  }
}
