import { resolveCursorConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import { actorOf } from '../../core/auth.js';
import { badInput } from '../../core/errors.js';
import { builder, scopes } from '../../graphql/builder.js';
import type { ChatRole } from './rules/jsonl.js';
import {
  type ChatRow,
  chatIdSchema,
  chatSearchInputSchema,
  messageRef,
  type SearchHit,
  type SearchResult,
} from './service.js';

const ChatRoleEnum = builder.enumType('ChatRole', {
  values: {
    USER: { value: 'user' as const },
    ASSISTANT: { value: 'assistant' as const },
    SYSTEM: {
      value: 'system' as const,
      description: 'Narrator and hidden messages, and non-standard lines.',
    },
  },
});

interface MessageRow {
  chatId: string;
  index: number;
  role: ChatRole;
  name: string;
  text: string;
  isUser: boolean;
  isSystem: boolean;
  nonStandard: boolean;
  sendDate: unknown;
  sentAt: Date | null;
  raw: string;
}

const ChatMessageType = builder.objectRef<MessageRow>('ChatMessage').implement({
  description: 'One line of a SillyTavern chat after the header.',
  fields: (t) => ({
    chatId: t.exposeString('chatId'),
    index: t.exposeInt('index', { description: "Position in SillyTavern's chat array (the message id)." }),
    ref: t.string({ resolve: (message) => messageRef(message.chatId, message.index) }),
    role: t.expose('role', { type: ChatRoleEnum }),
    name: t.exposeString('name'),
    text: t.exposeString('text', { description: '`mes`, or the `system` text of a non-standard line.' }),
    isUser: t.exposeBoolean('isUser'),
    isSystem: t.exposeBoolean('isSystem'),
    nonStandard: t.exposeBoolean('nonStandard', {
      description: 'A line without `mes`, such as a hand-written {"system": …}.',
    }),
    sendDate: t.field({
      type: 'JSON',
      nullable: true,
      description: '`send_date` as stored.',
      resolve: (m) => m.sendDate ?? null,
    }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true }),
    raw: t.field({
      type: 'JSON',
      description: 'The whole line as imported, unknown fields included.',
      resolve: (message) => JSON.parse(message.raw),
    }),
  }),
});

const ChatType = builder.objectRef<ChatRow>('Chat').implement({
  description: 'An imported SillyTavern chat file.',
  fields: (t) => ({
    id: t.exposeID('id'),
    fileName: t.exposeString('fileName', { nullable: true }),
    headerShape: t.exposeString('headerShape', {
      description: 'modern, placeholder (newer ST) or legacy (TavernAI).',
    }),
    userName: t.exposeString('userName', { nullable: true }),
    characterName: t.exposeString('characterName', { nullable: true }),
    createDate: t.expose('createDate', { type: 'DateTime', nullable: true }),
    header: t.field({ type: 'JSON', resolve: (chat) => JSON.parse(chat.header) }),
    messageCount: t.exposeInt('messageCount'),
    byteSize: t.exposeInt('byteSize', {
      description: 'UTF-8 bytes of the imported file; an export has the same.',
    }),
    sha256: t.exposeString('sha256', { description: 'Of the imported file; an export has the same.' }),
    importedBy: t.exposeString('importedBy'),
    importedAt: t.expose('importedAt', { type: 'DateTime' }),
    messages: t.connection({
      type: ChatMessageType,
      description: 'In index order.',
      args: { role: t.arg({ type: ChatRoleEnum }) },
      resolve: (chat, args, ctx) =>
        resolveCursorConnection<Promise<MessageRow[]>>(
          { args, toCursor: (message) => String(message.index), defaultSize: 50, maxSize: 500 },
          ({ after, before, limit, inverted }) =>
            ctx.services.chats.messagesPage(chat.id, {
              after: after == null ? null : indexCursor(after),
              before: before == null ? null : indexCursor(before),
              role: args.role ?? null,
              limit,
              inverted,
            }),
        ),
    }),
  }),
});

function indexCursor(cursor: string): number {
  if (!/^\d{1,9}$/.test(cursor)) throw badInput(`not a message cursor: ${cursor}`);
  return Number(cursor);
}

const ChatSearchHitType = builder.objectRef<SearchHit>('ChatSearchHit').implement({
  fields: (t) => ({
    ref: t.exposeString('ref'),
    index: t.exposeInt('index'),
    role: t.expose('role', { type: ChatRoleEnum }),
    name: t.exposeString('name'),
    sentAt: t.exposeString('sentAt', { nullable: true }),
    score: t.exposeInt('score'),
    snippet: t.exposeString('snippet'),
    snippetStart: t.exposeInt('snippetStart'),
    chars: t.exposeInt('chars'),
  }),
});

const ChatSearchResultType = builder.objectRef<SearchResult>('ChatSearchResult').implement({
  fields: (t) => ({
    chatId: t.exposeString('chatId'),
    terms: t.exposeStringList('terms'),
    matched: t.exposeInt('matched'),
    capped: t.exposeBoolean('capped', {
      description: 'More messages match than are ranked; narrow the query.',
    }),
    hits: t.expose('hits', { type: [ChatSearchHitType] }),
  }),
});

const ChatSearchInput = builder.inputType('ChatSearchInput', {
  fields: (t) => ({
    query: t.string({
      required: true,
      description: 'Terms separated by spaces; every term must occur (substring, any case).',
    }),
    roles: t.field({ type: [ChatRoleEnum] }),
    fromIndex: t.int(),
    toIndex: t.int(),
    limit: t.int(),
  }),
});

const ImportChatInput = builder.inputType('ImportChatInput', {
  fields: (t) => ({
    jsonl: t.string({ required: true, description: 'The whole SillyTavern chat file.' }),
    id: t.string({ description: 'Default: a new uuid.' }),
    fileName: t.string(),
    replace: t.boolean({ description: 'Replace a chat with the same id instead of failing with CONFLICT.' }),
  }),
});

builder.queryFields((t) => ({
  chats: t.connection({
    type: ChatType,
    description: 'Imported chats, by id.',
    authScopes: scopes.readers,
    resolve: (_root, args, ctx) =>
      resolveCursorConnection<Promise<ChatRow[]>>(
        { args, toCursor: (chat) => chat.id, defaultSize: 50, maxSize: 200 },
        (page) => ctx.services.chats.page(page),
      ),
  }),
  chat: t.field({
    type: ChatType,
    nullable: true,
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.chats.get(String(args.id)),
  }),
  exportChat: t.string({
    description: 'The chat as SillyTavern JSONL, byte for byte as it was imported.',
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.chats.exportChatText(String(args.id)),
  }),
  searchChat: t.field({
    type: ChatSearchResultType,
    description: 'The search chat.search runs, for UIs.',
    authScopes: scopes.readers,
    args: {
      chatId: t.arg.id({ required: true }),
      input: t.arg({ type: ChatSearchInput, required: true, validate: { schema: chatSearchInputSchema } }),
    },
    resolve: async (_root, args, ctx) => {
      const chat = await ctx.services.chats.require(String(args.chatId));
      return ctx.services.chats.search(chat.id, args.input);
    },
  }),
}));

builder.mutationFields((t) => ({
  importChat: t.field({
    type: ChatType,
    description:
      'Imports a SillyTavern chat (modern or legacy JSONL). Nothing is dropped; exportChat gives the file back.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        type: ImportChatInput,
        required: true,
        validate: {
          schema: z.object({
            jsonl: z.string().min(1),
            id: chatIdSchema.nullish(),
            fileName: z.string().trim().min(1).max(500).nullish(),
            replace: z.boolean().nullish(),
          }),
        },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.chats.importChat(args.input.jsonl, {
        id: args.input.id ?? null,
        fileName: args.input.fileName ?? null,
        replace: args.input.replace ?? false,
        actor: actorOf(ctx.principal),
      }),
  }),
}));
