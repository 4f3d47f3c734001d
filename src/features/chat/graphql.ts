import { resolveCursorConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import { ownerUserIdSchema } from '../../calls/index.js';
import { actorOf } from '../../core/auth.js';
import { badInput } from '../../core/errors.js';
import { builder, scopes } from '../../graphql/builder.js';
import { upperValues } from '../../graphql/enums.js';
import { MAX_APPEND_MESSAGES } from './rules/append.js';
import { type ChatRole, chatRoles } from './rules/jsonl.js';
import {
  type ChatRow,
  chatIdSchema,
  chatSearchInputSchema,
  messageRef,
  type SearchHit,
  type SearchResult,
} from './shapes.js';

const ChatRoleEnum = builder.enumType('ChatRole', {
  description: 'Who wrote a chat message: USER, ASSISTANT (the character) or SYSTEM.',
  values: upperValues(chatRoles, { system: 'Narrator and hidden messages, and non-standard lines.' }),
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
    chatId: t.exposeString('chatId', { description: 'The chat it belongs to.' }),
    index: t.exposeInt('index', { description: "Position in SillyTavern's chat array (the message id)." }),
    ref: t.string({
      description: 'A stable reference, `chat:<chatId>#<index>`.',
      resolve: (message) => messageRef(message.chatId, message.index),
    }),
    role: t.expose('role', { description: 'Who wrote it.', type: ChatRoleEnum }),
    name: t.exposeString('name', { description: 'The speaker name as stored.' }),
    text: t.exposeString('text', { description: '`mes`, or the `system` text of a non-standard line.' }),
    isUser: t.exposeBoolean('isUser', { description: '`is_user` as stored.' }),
    isSystem: t.exposeBoolean('isSystem', {
      description: '`is_system` as stored (narrator or hidden message).',
    }),
    nonStandard: t.exposeBoolean('nonStandard', {
      description: 'A line without `mes`, such as a hand-written {"system": …}.',
    }),
    sendDate: t.field({
      type: 'JSON',
      nullable: true,
      description: '`send_date` as stored.',
      resolve: (m) => m.sendDate ?? null,
    }),
    sentAt: t.expose('sentAt', {
      description: '`send_date` as a date-time; null when it cannot be read as one.',
      type: 'DateTime',
      nullable: true,
    }),
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
    id: t.exposeID('id', { description: 'The chat id runs name in `chatId`.' }),
    ownerUserId: t.exposeString('ownerUserId', {
      description: 'The user whose runs may read it; null when it belongs to nobody.',
      nullable: true,
    }),
    fileName: t.exposeString('fileName', {
      description: 'The file name it was imported from; null when none was given.',
      nullable: true,
    }),
    headerShape: t.exposeString('headerShape', {
      description: 'modern, placeholder (newer ST) or legacy (TavernAI).',
    }),
    userName: t.exposeString('userName', {
      description: '`user_name` from the header; null when absent or the placeholder `unused`.',
      nullable: true,
    }),
    characterName: t.exposeString('characterName', {
      description: '`character_name` from the header; null when absent or the placeholder `unused`.',
      nullable: true,
    }),
    createDate: t.expose('createDate', {
      description: '`create_date` from the header as a date-time; null when absent or unreadable.',
      type: 'DateTime',
      nullable: true,
    }),
    header: t.field({
      description: 'The header line as imported.',
      type: 'JSON',
      resolve: (chat) => JSON.parse(chat.header),
    }),
    messageCount: t.exposeInt('messageCount', { description: 'Messages after the header.' }),
    byteSize: t.exposeInt('byteSize', {
      description: 'UTF-8 bytes of the imported file; an export has the same.',
    }),
    sha256: t.exposeString('sha256', { description: 'Of the imported file; an export has the same.' }),
    importedBy: t.exposeString('importedBy', { description: 'The actor that imported it.' }),
    importedAt: t.expose('importedAt', { description: 'When it was imported.', type: 'DateTime' }),
    messages: t.connection({
      type: ChatMessageType,
      description: 'In index order, 50 per page by default, at most 500.',
      args: { role: t.arg({ description: 'Only messages with this role.', type: ChatRoleEnum }) },
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
  description: 'One message that contains every term.',
  fields: (t) => ({
    ref: t.exposeString('ref', { description: 'A stable reference, `chat:<chatId>#<index>`.' }),
    index: t.exposeInt('index', { description: 'Position in the chat (the message id).' }),
    role: t.expose('role', { description: 'Who wrote it.', type: ChatRoleEnum }),
    name: t.exposeString('name', { description: 'The speaker name.' }),
    sentAt: t.exposeString('sentAt', {
      description: 'When it was sent (ISO-8601); null when unknown.',
      nullable: true,
    }),
    score: t.exposeInt('score', {
      description:
        'Occurrences of the terms, plus one per Latin term that matches a whole word; hits are ranked by it, then by recency.',
    }),
    snippet: t.exposeString('snippet', {
      description: 'Text around the first match, with … where it is cut.',
    }),
    snippetStart: t.exposeInt('snippetStart', {
      description: "Code-point offset of the snippet's first character in the message.",
    }),
    chars: t.exposeInt('chars', { description: 'Length of the whole message text, in characters.' }),
  }),
});

const ChatSearchResultType = builder.objectRef<SearchResult>('ChatSearchResult').implement({
  description: 'The ranked messages of a chat that contain every term.',
  fields: (t) => ({
    chatId: t.exposeString('chatId', { description: 'The chat searched.' }),
    terms: t.exposeStringList('terms', { description: 'The terms the query was split into.' }),
    matched: t.exposeInt('matched', { description: 'Messages that match; a lower bound when `capped`.' }),
    capped: t.exposeBoolean('capped', {
      description: 'More messages match than are ranked; narrow the query.',
    }),
    hits: t.expose('hits', { description: 'The best hits, best first.', type: [ChatSearchHitType] }),
  }),
});

const ChatSearchInput = builder.inputType('ChatSearchInput', {
  description: 'What to look for in a chat.',
  fields: (t) => ({
    query: t.string({
      required: true,
      description: 'Terms separated by spaces; every term must occur (substring, any case).',
    }),
    roles: t.field({ description: 'Only messages with these roles.', type: [ChatRoleEnum] }),
    fromIndex: t.int({ description: 'Only messages at this index or later.' }),
    toIndex: t.int({ description: 'Only messages at this index or earlier.' }),
    limit: t.int({ description: 'Hits to return, 1 to 100 (default 20).' }),
  }),
});

const ImportChatInput = builder.inputType('ImportChatInput', {
  description: 'A SillyTavern chat file to import.',
  fields: (t) => ({
    jsonl: t.string({ required: true, description: 'The whole SillyTavern chat file.' }),
    id: t.string({ description: 'Default: a new uuid.' }),
    fileName: t.string({ description: 'The file name, kept for reference.' }),
    replace: t.boolean({ description: 'Replace a chat with the same id instead of failing with CONFLICT.' }),
    ownerUserId: t.string({
      description:
        'The user whose runs may read it (and whose approvers and viewers see it). Absent: nobody, so only runs without a user read it.',
    }),
  }),
});

const ChatAppendResultType = builder
  .objectRef<{ chat: ChatRow; firstIndex: number; count: number }>('ChatAppendResult')
  .implement({
    description: 'Messages appended to a chat.',
    fields: (t) => ({
      chat: t.field({ type: ChatType, description: 'The chat with them.', resolve: (r) => r.chat }),
      firstIndex: t.exposeInt('firstIndex', {
        description: 'The index (message id) the first appended message got; the others follow in order.',
      }),
      count: t.exposeInt('count', { description: 'Messages appended.' }),
    }),
  });

builder.queryFields((t) => ({
  chats: t.connection({
    type: ChatType,
    description:
      "Imported chats the caller may read, by id, 50 per page by default, at most 200: people see their users' chats, agents their user's that their runs name. Every role but EXTENSION.",
    authScopes: { ...scopes.readers, host: true },
    resolve: (_root, args, ctx) =>
      resolveCursorConnection<Promise<ChatRow[]>>(
        { args, toCursor: (chat) => chat.id, defaultSize: 50, maxSize: 200 },
        (page) => ctx.services.chats.page(page, ctx.principal!),
      ),
  }),
  chat: t.field({
    description:
      'One imported chat; null when there is none or the caller may not read it (see `chats`). Every role but EXTENSION.',
    type: ChatType,
    nullable: true,
    authScopes: { ...scopes.readers, host: true },
    args: { id: t.arg.id({ description: 'The chat id.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.chats.visible(ctx.principal!, String(args.id)),
  }),
  exportChat: t.string({
    description:
      'The chat as SillyTavern JSONL, byte for byte as it was imported; NOT_FOUND when the caller may not read it. Every role but EXTENSION.',
    authScopes: { ...scopes.readers, host: true },
    args: { id: t.arg.id({ description: 'The chat id.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.chats.exportChatText(String(args.id), ctx.principal!),
  }),
  searchChat: t.field({
    type: ChatSearchResultType,
    description:
      'The search chat.search runs, for UIs; NOT_FOUND when the caller may not read the chat. Every role but EXTENSION.',
    authScopes: { ...scopes.readers, host: true },
    args: {
      chatId: t.arg.id({ description: 'The chat to search.', required: true }),
      input: t.arg({
        description: 'The query and its filters.',
        type: ChatSearchInput,
        required: true,
        validate: { schema: chatSearchInputSchema },
      }),
    },
    resolve: async (_root, args, ctx) => {
      const chat = await ctx.services.chats.requireVisible(ctx.principal!, String(args.chatId));
      return ctx.services.chats.search(chat.id, args.input);
    },
  }),
}));

builder.mutationFields((t) => ({
  importChat: t.field({
    type: ChatType,
    description:
      'Imports a SillyTavern chat (modern or legacy JSONL). Nothing is dropped; exportChat gives the file back. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The chat file.',
        type: ImportChatInput,
        required: true,
        validate: {
          schema: z.object({
            jsonl: z.string().min(1),
            id: chatIdSchema.nullish(),
            fileName: z.string().trim().min(1).max(500).nullish(),
            replace: z.boolean().nullish(),
            ownerUserId: ownerUserIdSchema.optional(),
          }),
        },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.chats.importChat(args.input.jsonl, {
        id: args.input.id ?? null,
        fileName: args.input.fileName ?? null,
        replace: args.input.replace ?? false,
        ownerUserId: args.input.ownerUserId ?? null,
        actor: actorOf(ctx.principal),
      }),
  }),
  appendChatMessages: t.field({
    type: ChatAppendResultType,
    description: `Appends SillyTavern messages (objects with \`name\`, \`mes\` and optionally \`is_user\`, \`is_system\`, \`send_date\` and any other field ST keeps) after the chat's last message, in one transaction, at most ${MAX_APPEND_MESSAGES} per call; search and history see them at once and exportChat includes them. BAD_USER_INPUT names the first malformed message's index; NOT_FOUND when the chat does not exist or belongs to a user the token is not bound to. ADMIN and HOST.`,
    authScopes: { admin: true, host: true },
    args: {
      chatId: t.arg.id({ description: 'The chat.', required: true }),
      messages: t.arg({
        description: `The messages in order, 1 to ${MAX_APPEND_MESSAGES}.`,
        type: ['JSON'],
        required: true,
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.chats.appendMessages(ctx.principal!, String(args.chatId), args.messages),
  }),
  setChatOwner: t.field({
    type: ChatType,
    description:
      'Gives a chat to another user (null: to nobody); from then on only runs of that user may name it. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      id: t.arg.id({ description: 'The chat id.', required: true }),
      userId: t.arg.string({ description: 'The new owner; null for nobody.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.chats.setOwner(String(args.id), args.userId ?? null),
  }),
}));
