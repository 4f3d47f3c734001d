import { ToolAnnotationsInput, ToolType } from '../../calls/graphql/tool.js';
import { builder, scopes } from '../../graphql/builder.js';
import type { ExtensionConnectionRow, InvocationRow } from './index.js';
import {
  bridgeInvocationStatuses,
  extensionAnswerSchema,
  registerExtensionToolsInputSchema,
} from './rules/extension-tool.js';

/** Only extension tokens use the bridge, and each only for its own extension (the token names it). */
const extensionOnly = { extension: true } as const;

const ExtensionInvocationStatusEnum = builder.enumType('ExtensionInvocationStatus', {
  description:
    'PENDING until the extension answers (ANSWERED), the deadline passes (TIMED_OUT), the extension disconnects (DISCONNECTED) or the call is cancelled (CANCELLED).',
  values: bridgeInvocationStatuses,
});

const ExtensionInvocationType = builder.objectRef<InvocationRow>('ExtensionInvocation').implement({
  description: 'A call handed to an extension to execute. Answer it with answerExtensionInvocation.',
  fields: (t) => ({
    callId: t.exposeID('callId', { description: 'The tool call to answer.' }),
    toolName: t.exposeString('toolName', { description: 'The full name, ext.<extensionId>.<name>.' }),
    name: t.exposeString('localName', { description: 'The name the extension registered.' }),
    arguments: t.expose('arguments', {
      description: 'The arguments, already validated against the input schema.',
      type: 'JSON',
    }),
    deadline: t.expose('deadline', {
      type: 'DateTime',
      description: 'An answer after this is refused (CONFLICT) and the call has timed out.',
    }),
    status: t.expose('status', {
      description: 'Whether it still waits for an answer.',
      type: ExtensionInvocationStatusEnum,
    }),
  }),
});

const ExtensionToolInput = builder.inputType('ExtensionToolInput', {
  description: 'One tool the extension offers; it runs in the extension, never on the server.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description: 'Local name without dots; the tool is registered as ext.<extensionId>.<name>.',
    }),
    title: t.string({ description: 'Defaults to displayName, then to name.' }),
    displayName: t.string({ description: 'A name for approval screens.' }),
    description: t.string({ description: 'What the tool does, as the model is told.', required: true }),
    inputSchema: t.field({
      description: 'JSON Schema of the arguments (compiles with Ajv, at most 64 KiB; patterns run on RE2).',
      type: 'JSON',
      required: true,
    }),
    outputSchema: t.field({
      type: 'JSON',
      description: 'When set, answers must carry matching structured output.',
    }),
    annotations: t.field({
      description: 'Side-effect hints; unset ones take the MCP defaults (destructive, open world).',
      type: ToolAnnotationsInput,
    }),
    approvalMessageTemplate: t.string({
      description: 'Plain text with {{argument}} placeholders, filled in for approvers. No code.',
    }),
  }),
});

const RegisterExtensionToolsInput = builder.inputType('RegisterExtensionToolsInput', {
  description: 'Tools to register for the calling extension.',
  fields: (t) => ({
    tools: t.field({
      description: 'The tools; one that is already registered is updated.',
      type: [ExtensionToolInput],
      required: true,
    }),
    replace: t.boolean({ description: "Unregister this extension's tools that are not listed." }),
  }),
});

const ExtensionResultInput = builder.inputType('ExtensionResultInput', {
  description: 'A structured ToolResult: text and JSON content parts, structured output, and isError.',
  fields: (t) => ({
    content: t.field({
      type: 'JSON',
      description: 'A list of { type: "text", text } and { type: "json", value } parts.',
    }),
    structured: t.field({
      description: 'Structured output; must match the outputSchema when the tool has one.',
      type: 'JSON',
    }),
    isError: t.boolean({ description: 'A result the model reads as a failure; the call still completes.' }),
  }),
});

const ExtensionConnectionType = builder.objectRef<ExtensionConnectionRow>('ExtensionConnection').implement({
  description:
    'A live extensionInvocations subscription, in whichever server process holds it. Its lease is renewed while it lasts.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The connection id.' }),
    extensionId: t.exposeString('extensionId', { description: 'The connected extension.' }),
    connectedAt: t.expose('connectedAt', { description: 'When the subscription started.', type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', {
      description: 'When the lease runs out unless renewed (a process that dies stops renewing it).',
      type: 'DateTime',
    }),
  }),
});

builder.queryFields((t) => ({
  extensionConnections: t.field({
    type: [ExtensionConnectionType],
    description:
      'Which extensions are connected now, across all server processes. ADMIN, APPROVER and VIEWER.',
    authScopes: scopes.people,
    resolve: (_root, _args, ctx) => ctx.services.extensions.store.liveConnections(),
  }),
  extensionTools: t.field({
    type: [ToolType],
    description:
      "The calling extension's own tools, unregistered ones included. Other tools stay out of sight. EXTENSION tokens only.",
    authScopes: extensionOnly,
    resolve: (_root, _args, ctx) => ctx.services.extensions.tools.list(ctx.principal!),
  }),
}));

builder.mutationFields((t) => ({
  registerExtensionTools: t.field({
    type: [ToolType],
    description:
      'Registers or updates tools of the calling extension (source EXTENSION). They stay invisible until a policy allows them, and need approval by default. EXTENSION tokens only.',
    authScopes: extensionOnly,
    args: {
      input: t.arg({
        description: 'The tools.',
        type: RegisterExtensionToolsInput,
        required: true,
        validate: { schema: registerExtensionToolsInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.extensions.tools.register(args.input, ctx.principal!),
  }),
  unregisterExtensionTools: t.field({
    type: [ToolType],
    description:
      'Disables tools of the calling extension (by local name); their history stays. EXTENSION tokens only.',
    authScopes: extensionOnly,
    args: {
      names: t.arg.stringList({
        description: 'Local names, without the `ext.<extensionId>.` prefix.',
        required: true,
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.extensions.tools.unregister(args.names, ctx.principal!),
  }),
  answerExtensionInvocation: t.field({
    type: ExtensionInvocationType,
    description:
      "Answers an invocation of this extension, once. Late or repeated answers: CONFLICT; output not matching the output schema: BAD_USER_INPUT (the call keeps waiting); another extension's call: NOT_FOUND. EXTENSION tokens only.",
    authScopes: extensionOnly,
    args: {
      callId: t.arg.id({ description: 'The invocation to answer.', required: true }),
      result: t.arg({
        description: 'What the tool returned.',
        type: ExtensionResultInput,
        required: true,
        validate: { schema: extensionAnswerSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.extensions.answer(String(args.callId), args.result, ctx.principal!),
  }),
}));

builder.subscriptionFields((t) => ({
  extensionInvocations: t.field({
    type: ExtensionInvocationType,
    description:
      'The calls addressed to this extension: first those already pending, then each new one. While it is open the extension counts as connected. EXTENSION tokens only.',
    authScopes: extensionOnly,
    subscribe: (_root, _args, ctx) => ctx.services.extensions.invocations(ctx.principal!),
    resolve: (row: InvocationRow) => row,
  }),
}));
