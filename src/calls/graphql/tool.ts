import { resolveCursorConnection } from '@pothos/plugin-relay';
import { registerToolInputSchema, updateToolInputSchema } from '../../core/tool-input.js';
import {
  type ToolAnnotations,
  type ToolBudget,
  type ToolSpec,
  toolCosts,
  toolPermissions,
  toolSources,
  toolVisibilities,
} from '../../core/tool-spec.js';
import { builder, scopes } from '../../graphql/builder.js';

export const ToolSourceEnum = builder.enumType('ToolSource', {
  description:
    'Where a tool comes from: BUILT_IN (this server), MCP (an MCP server), EXTENSION (a frontend extension) or SKILL.',
  values: toolSources,
});
const ToolPermissionEnum = builder.enumType('ToolPermission', {
  description:
    "The tool's own rule: ALWAYS_ALLOW, APPROVAL_REQUIRED (every call waits for a decision) or DENY (never callable).",
  values: toolPermissions,
});
const ToolVisibilityEnum = builder.enumType('ToolVisibility', {
  description: 'MODEL tools can be offered to a model; USER_ONLY tools never are.',
  values: toolVisibilities,
});
const ToolCostEnum = builder.enumType('ToolCost', {
  description: 'How expensive a call is; HIGH makes approval the default.',
  values: toolCosts,
});

export const ToolAnnotationsType = builder.objectRef<ToolAnnotations>('ToolAnnotations').implement({
  description:
    'Side-effect hints. Unset hints take MCP defaults: not read-only, destructive, not idempotent, open world.',
  fields: (t) => ({
    readOnly: t.exposeBoolean('readOnly', { description: 'The tool changes nothing.' }),
    destructive: t.exposeBoolean('destructive', {
      description: 'The tool may delete or overwrite; approval is then the default.',
    }),
    idempotent: t.exposeBoolean('idempotent', {
      description:
        'Calling again with the same arguments has no further effect; an interrupted call is then run again.',
    }),
    openWorld: t.exposeBoolean('openWorld', {
      description:
        'The tool reaches outside this server (network, other systems); approval is then the default.',
    }),
    cost: t.expose('cost', {
      description: 'How expensive a call is; null when unstated.',
      type: ToolCostEnum,
      nullable: true,
    }),
  }),
});

export const ToolBudgetType = builder.objectRef<ToolBudget>('ToolBudget').implement({
  description: 'Limits on calls of a tool; null means no limit from this source.',
  fields: (t) => ({
    maxCalls: t.exposeInt('maxCalls', { description: 'Calls of this tool allowed per run.', nullable: true }),
    maxOutputTokens: t.exposeInt('maxOutputTokens', {
      description:
        'Output above this many tokens (o200k) is stored as a resource and the result keeps a preview.',
      nullable: true,
    }),
    timeoutMs: t.exposeInt('timeoutMs', {
      description: 'How long one call may run, in milliseconds, before it fails as `timeout`.',
      nullable: true,
    }),
    approvalTimeoutMs: t.int({
      nullable: true,
      description:
        'How long a call may wait for a decision, in milliseconds, before it ends EXPIRED (RECOVERABLE `approval_expired`; not a denial).',
      resolve: (budget) => budget.approvalTimeoutMs ?? null,
    }),
    approvals: t.int({
      nullable: true,
      description:
        'Distinct people who must approve a call before it runs (quorum, 1 to 10); null is one. Where several sources set it, the most wins.',
      resolve: (budget) => budget.approvals ?? null,
    }),
    forbidSelfApproval: t.boolean({
      nullable: true,
      description:
        "The run's own user (an approver whose name or user id is the run's userId) may not approve its calls; null is false. Any source setting it wins.",
      resolve: (budget) => budget.forbidSelfApproval ?? null,
    }),
  }),
});

export const ToolType = builder.objectRef<ToolSpec>('Tool').implement({
  description: 'A registered tool: what a model may be offered and call, subject to policy.',
  fields: (t) => ({
    name: t.exposeString('name', {
      description:
        'Unique name (1-128 of A-Z a-z 0-9 _ - .), such as `workspace.read_file` or `mcp.<server>.<tool>`.',
    }),
    title: t.exposeString('title', { description: 'A short human-readable name.' }),
    description: t.exposeString('description', { description: 'What the tool does, as the model is told.' }),
    inputSchema: t.expose('inputSchema', {
      description: 'JSON Schema of the arguments; every call is validated against it.',
      type: 'JSON',
    }),
    outputSchema: t.expose('outputSchema', {
      description: 'JSON Schema of the structured output; null when the tool does not state one.',
      type: 'JSON',
      nullable: true,
    }),
    annotations: t.expose('annotations', {
      description: 'Side-effect hints, which set the default approval gates.',
      type: ToolAnnotationsType,
    }),
    visibility: t.expose('visibility', {
      description: 'Whether the tool can be offered to a model.',
      type: ToolVisibilityEnum,
    }),
    permission: t.expose('permission', {
      description: "The tool's own allow/approve/deny rule.",
      type: ToolPermissionEnum,
    }),
    budget: t.expose('budget', {
      description: "The tool's own limits; null when it sets none.",
      type: ToolBudgetType,
      nullable: true,
    }),
    source: t.expose('source', { description: 'Where the tool comes from.', type: ToolSourceEnum }),
    enabled: t.exposeBoolean('enabled', { description: 'A disabled tool is hidden from every run.' }),
    displayName: t.string({
      description: 'A name for approval screens, when its author gave one.',
      nullable: true,
      resolve: (tool) => tool.displayName ?? null,
    }),
    approvalMessageTemplate: t.string({
      nullable: true,
      description: 'Plain text with {{argument}} placeholders; approvers see it filled in.',
      resolve: (tool) => tool.approvalTemplate ?? null,
    }),
  }),
});

export const ToolAnnotationsInput = builder.inputType('ToolAnnotationsInput', {
  description:
    'Side-effect hints; an unset hint takes the MCP default (not read-only, destructive, not idempotent, open world).',
  fields: (t) => ({
    readOnly: t.boolean({ description: 'The tool changes nothing.' }),
    destructive: t.boolean({ description: 'The tool may delete or overwrite.' }),
    idempotent: t.boolean({ description: 'Calling again with the same arguments has no further effect.' }),
    openWorld: t.boolean({ description: 'The tool reaches outside this server.' }),
    cost: t.field({ description: 'How expensive a call is.', type: ToolCostEnum }),
  }),
});

export const ToolBudgetInput = builder.inputType('ToolBudgetInput', {
  description: 'Limits on calls of a tool; leave a field unset for no limit.',
  fields: (t) => ({
    maxCalls: t.int({ description: 'Calls of this tool allowed per run (positive).' }),
    maxOutputTokens: t.int({
      description:
        'Output above this many tokens (o200k) is stored as a resource with a preview in the result.',
    }),
    timeoutMs: t.int({ description: 'How long one call may run, in milliseconds (at most one hour).' }),
    approvalTimeoutMs: t.int({
      description:
        'How long a call may wait for a decision, in milliseconds (at most 30 days), before it ends EXPIRED (RECOVERABLE `approval_expired`; not a denial).',
    }),
    approvals: t.int({
      description:
        'Distinct people who must approve a call before it runs (1 to 10, default 1): 2 is a two-person rule.',
    }),
    forbidSelfApproval: t.boolean({ description: "The run's own user may not approve its calls." }),
  }),
});

const RegisterToolInput = builder.inputType('RegisterToolInput', {
  description: 'A tool to register; the schemas must compile with Ajv and be at most 64 KiB of JSON.',
  fields: (t) => ({
    name: t.string({ description: 'Unique name: 1-128 of A-Z a-z 0-9 _ - .', required: true }),
    title: t.string({ description: 'A short human-readable name.', required: true }),
    description: t.string({ description: 'What the tool does, as the model is told.', required: true }),
    inputSchema: t.field({
      description: 'JSON Schema of the arguments (patterns run on RE2; no lookaround or backreferences).',
      type: 'JSON',
      required: true,
    }),
    outputSchema: t.field({ description: 'JSON Schema of the structured output, if any.', type: 'JSON' }),
    annotations: t.field({
      description: 'Side-effect hints; unset ones take the MCP defaults.',
      type: ToolAnnotationsInput,
    }),
    visibility: t.field({ description: 'MODEL by default.', type: ToolVisibilityEnum }),
    permission: t.field({
      description: "The tool's own rule; ALWAYS_ALLOW by default (policy rules still decide).",
      type: ToolPermissionEnum,
    }),
    budget: t.field({ description: "The tool's own limits.", type: ToolBudgetInput }),
    source: t.field({
      description: "Where the tool comes from; BUILT_IN is reserved for the server's own tools.",
      type: ToolSourceEnum,
      required: true,
    }),
  }),
});

const UpdateToolInput = builder.inputType('UpdateToolInput', {
  description:
    'The fields to change; unset fields keep their value. BUILT_IN tools accept only visibility, permission, budget and enabled.',
  fields: (t) => ({
    title: t.string({ description: 'A short human-readable name.' }),
    description: t.string({ description: 'What the tool does, as the model is told.' }),
    inputSchema: t.field({ description: 'JSON Schema of the arguments.', type: 'JSON' }),
    outputSchema: t.field({
      description: 'JSON Schema of the structured output; null removes it.',
      type: 'JSON',
    }),
    annotations: t.field({
      description: 'Side-effect hints (replace them whole).',
      type: ToolAnnotationsInput,
    }),
    visibility: t.field({
      description: 'Whether the tool can be offered to a model.',
      type: ToolVisibilityEnum,
    }),
    permission: t.field({ description: "The tool's own rule.", type: ToolPermissionEnum }),
    budget: t.field({
      description: "The tool's own limits (replace them whole; null removes them).",
      type: ToolBudgetInput,
    }),
    enabled: t.boolean({ description: 'A disabled tool is hidden from every run.' }),
  }),
});

builder.queryFields((t) => ({
  tools: t.connection({
    description: 'The registry by name, 50 per page by default, at most 200. Every role but EXTENSION.',
    type: ToolType,
    authScopes: scopes.readers,
    args: { source: t.arg({ description: 'Only tools from this source.', type: ToolSourceEnum }) },
    resolve: (_root, args, ctx) =>
      resolveCursorConnection<Promise<ToolSpec[]>>(
        { args, toCursor: (tool) => tool.name, defaultSize: 50, maxSize: 200 },
        (page) => ctx.services.registry.page({ ...page, source: args.source }),
      ),
  }),
  tool: t.field({
    description: 'One tool by name; null when there is none. Every role but EXTENSION.',
    type: ToolType,
    nullable: true,
    authScopes: scopes.readers,
    args: { name: t.arg.string({ description: "The tool's name.", required: true }) },
    resolve: (_root, args, ctx) => ctx.services.registry.get(args.name),
  }),
}));

builder.mutationFields((t) => ({
  registerTool: t.field({
    type: ToolType,
    description:
      'Registers a tool or replaces a registered one. BUILT_IN tools cannot be replaced. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The tool.',
        type: RegisterToolInput,
        required: true,
        validate: { schema: registerToolInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.registry.register(args.input),
  }),
  updateTool: t.field({
    type: ToolType,
    description:
      'Changes some fields of a tool. On BUILT_IN tools only visibility, permission, budget and enabled. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      name: t.arg.string({ description: 'The tool to change.', required: true }),
      input: t.arg({
        description: 'The changes.',
        type: UpdateToolInput,
        required: true,
        validate: { schema: updateToolInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.registry.update(args.name, args.input),
  }),
  setToolEnabled: t.field({
    description:
      'Enables or disables a tool (BUILT_IN ones too); a disabled tool is hidden from every run. ADMIN only.',
    type: ToolType,
    authScopes: scopes.admin,
    args: {
      name: t.arg.string({ description: 'The tool.', required: true }),
      enabled: t.arg.boolean({ description: 'false hides it from every run.', required: true }),
    },
    resolve: (_root, args, ctx) => ctx.services.registry.setEnabled(args.name, args.enabled),
  }),
  removeTool: t.boolean({
    description:
      'Removes a registered tool. BUILT_IN tools cannot be removed; disable them instead. ADMIN only.',
    authScopes: scopes.admin,
    args: { name: t.arg.string({ description: 'The tool to remove.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.registry.remove(args.name),
  }),
}));
