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

export const ToolSourceEnum = builder.enumType('ToolSource', { values: toolSources });
export const ToolPermissionEnum = builder.enumType('ToolPermission', { values: toolPermissions });
export const ToolVisibilityEnum = builder.enumType('ToolVisibility', { values: toolVisibilities });
export const ToolCostEnum = builder.enumType('ToolCost', { values: toolCosts });

export const ToolAnnotationsType = builder.objectRef<ToolAnnotations>('ToolAnnotations').implement({
  description:
    'Side-effect hints. Unset hints take MCP defaults: not read-only, destructive, not idempotent, open world.',
  fields: (t) => ({
    readOnly: t.exposeBoolean('readOnly'),
    destructive: t.exposeBoolean('destructive'),
    idempotent: t.exposeBoolean('idempotent'),
    openWorld: t.exposeBoolean('openWorld'),
    cost: t.expose('cost', { type: ToolCostEnum, nullable: true }),
  }),
});

export const ToolBudgetType = builder.objectRef<ToolBudget>('ToolBudget').implement({
  fields: (t) => ({
    maxCalls: t.exposeInt('maxCalls', { nullable: true }),
    maxOutputTokens: t.exposeInt('maxOutputTokens', { nullable: true }),
    timeoutMs: t.exposeInt('timeoutMs', { nullable: true }),
    approvalTimeoutMs: t.int({
      nullable: true,
      description:
        'How long a call may wait for a decision before it counts as denied with reason `expired`.',
      resolve: (budget) => budget.approvalTimeoutMs ?? null,
    }),
  }),
});

export const ToolType = builder.objectRef<ToolSpec>('Tool').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    inputSchema: t.expose('inputSchema', { type: 'JSON' }),
    outputSchema: t.expose('outputSchema', { type: 'JSON', nullable: true }),
    annotations: t.expose('annotations', { type: ToolAnnotationsType }),
    visibility: t.expose('visibility', { type: ToolVisibilityEnum }),
    permission: t.expose('permission', { type: ToolPermissionEnum }),
    budget: t.expose('budget', { type: ToolBudgetType, nullable: true }),
    source: t.expose('source', { type: ToolSourceEnum }),
    enabled: t.exposeBoolean('enabled'),
    displayName: t.string({ nullable: true, resolve: (tool) => tool.displayName ?? null }),
    approvalMessageTemplate: t.string({
      nullable: true,
      description: 'Plain text with {{argument}} placeholders; approvers see it filled in.',
      resolve: (tool) => tool.approvalTemplate ?? null,
    }),
  }),
});

export const ToolAnnotationsInput = builder.inputType('ToolAnnotationsInput', {
  fields: (t) => ({
    readOnly: t.boolean(),
    destructive: t.boolean(),
    idempotent: t.boolean(),
    openWorld: t.boolean(),
    cost: t.field({ type: ToolCostEnum }),
  }),
});

export const ToolBudgetInput = builder.inputType('ToolBudgetInput', {
  fields: (t) => ({
    maxCalls: t.int(),
    maxOutputTokens: t.int(),
    timeoutMs: t.int(),
    approvalTimeoutMs: t.int(),
  }),
});

const RegisterToolInput = builder.inputType('RegisterToolInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    title: t.string({ required: true }),
    description: t.string({ required: true }),
    inputSchema: t.field({ type: 'JSON', required: true }),
    outputSchema: t.field({ type: 'JSON' }),
    annotations: t.field({ type: ToolAnnotationsInput }),
    visibility: t.field({ type: ToolVisibilityEnum }),
    permission: t.field({ type: ToolPermissionEnum }),
    budget: t.field({ type: ToolBudgetInput }),
    source: t.field({ type: ToolSourceEnum, required: true }),
  }),
});

const UpdateToolInput = builder.inputType('UpdateToolInput', {
  fields: (t) => ({
    title: t.string(),
    description: t.string(),
    inputSchema: t.field({ type: 'JSON' }),
    outputSchema: t.field({ type: 'JSON' }),
    annotations: t.field({ type: ToolAnnotationsInput }),
    visibility: t.field({ type: ToolVisibilityEnum }),
    permission: t.field({ type: ToolPermissionEnum }),
    budget: t.field({ type: ToolBudgetInput }),
    enabled: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  tools: t.connection({
    type: ToolType,
    authScopes: scopes.readers,
    args: { source: t.arg({ type: ToolSourceEnum }) },
    resolve: (_root, args, ctx) =>
      resolveCursorConnection<Promise<ToolSpec[]>>(
        { args, toCursor: (tool) => tool.name, defaultSize: 50, maxSize: 200 },
        (page) => ctx.services.registry.page({ ...page, source: args.source }),
      ),
  }),
  tool: t.field({
    type: ToolType,
    nullable: true,
    authScopes: scopes.readers,
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.registry.get(args.name),
  }),
}));

builder.mutationFields((t) => ({
  registerTool: t.field({
    type: ToolType,
    description: 'Registers a tool or replaces a registered one. BUILT_IN tools cannot be replaced.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
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
      'Changes some fields of a tool. On BUILT_IN tools only visibility, permission, budget and enabled.',
    authScopes: scopes.admin,
    args: {
      name: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateToolInput, required: true, validate: { schema: updateToolInputSchema } }),
    },
    resolve: (_root, args, ctx) => ctx.services.registry.update(args.name, args.input),
  }),
  setToolEnabled: t.field({
    type: ToolType,
    authScopes: scopes.admin,
    args: { name: t.arg.string({ required: true }), enabled: t.arg.boolean({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.registry.setEnabled(args.name, args.enabled),
  }),
  removeTool: t.boolean({
    description: 'Removes a registered tool. BUILT_IN tools cannot be removed; disable them instead.',
    authScopes: scopes.admin,
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.registry.remove(args.name),
  }),
}));
