import { ToolCallType } from '../../calls/graphql/tool-call.js';
import { actorOf } from '../../core/auth.js';
import { builder, scopes } from '../../graphql/builder.js';
import type { DeliveryRow } from './deliver.js';
import type { ApprovalLinkView } from './service.js';
import {
  createTargetInputSchema,
  deliveryStatuses,
  notificationEventKinds,
  notificationKinds,
  updateTargetInputSchema,
} from './shapes.js';
import { type NotificationTarget, publicTarget } from './targets.js';

const NotificationKindEnum = builder.enumType('NotificationKind', {
  description:
    'WEBHOOK: a signed JSON body (docs/notifications.md). CHAT_WEBHOOK: a Slack-compatible incoming webhook, `{ "text": ... }` with a link to the console.',
  values: notificationKinds,
});
const NotificationEventKindEnum = builder.enumType('NotificationEventKind', {
  description:
    'APPROVAL_REQUESTED: a call waits for a person. APPROVAL_EXPIRING: its approval is about to expire. CALL_DECIDED: it was approved, denied, edited or expired.',
  values: notificationEventKinds,
});
const NotificationDeliveryStatusEnum = builder.enumType('NotificationDeliveryStatus', {
  description:
    'PENDING: not sent yet or to be retried. DELIVERED: the target answered 2xx. FAILED: every attempt failed.',
  values: deliveryStatuses,
});

const NotificationTargetType = builder.objectRef<NotificationTarget>('NotificationTarget').implement({
  description:
    'Where notifications go, configured by an admin. The secret is write-only: only whether one is set is shown.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The target id.' }),
    name: t.exposeString('name', { description: 'The target name, unique.' }),
    kind: t.expose('kind', { description: 'The body shape sent.', type: NotificationKindEnum }),
    url: t.exposeString('url', {
      description:
        'Where deliveries are POSTed. A chat webhook URL is itself a credential: it is never logged or journaled.',
    }),
    events: t.expose('events', { description: 'What it is told about.', type: [NotificationEventKindEnum] }),
    consoleUrl: t.exposeString('consoleUrl', {
      description:
        'The console base URL for one-time links (`<consoleUrl>/#/calls/<id>?link=<token>`); null: no links.',
      nullable: true,
    }),
    hasSecret: t.boolean({
      description: 'Whether bodies are signed (x-ats-signature).',
      resolve: (target) => publicTarget(target).hasSecret,
    }),
    enabled: t.exposeBoolean('enabled', { description: 'A disabled target is sent nothing new.' }),
    createdAt: t.expose('createdAt', { description: 'When it was added.', type: 'DateTime' }),
  }),
});

const NotificationDeliveryType = builder.objectRef<DeliveryRow>('NotificationDelivery').implement({
  description:
    'One notification to one target and how sending it went (the body is not shown: it may hold a link).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The delivery id, also sent as x-ats-delivery.' }),
    targetId: t.exposeID('targetId', { description: 'The target.' }),
    event: t.expose('event', { description: 'What it tells.', type: NotificationEventKindEnum }),
    callId: t.exposeID('callId', { description: 'The call it is about.', nullable: true }),
    status: t.expose('status', { description: 'Where it is.', type: NotificationDeliveryStatusEnum }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    lastStatusCode: t.exposeInt('lastStatusCode', {
      description: "The last attempt's HTTP status; null when it got no answer.",
      nullable: true,
    }),
    lastError: t.exposeString('lastError', {
      description: 'Why the last attempt failed; null when it did not.',
      nullable: true,
    }),
    nextAttemptAt: t.field({
      description: 'When a PENDING delivery is tried next; null once it is final.',
      type: 'DateTime',
      nullable: true,
      resolve: (d) => (d.status === 'PENDING' ? d.nextAttemptAt : null),
    }),
    deliveredAt: t.expose('deliveredAt', {
      description: 'When it was delivered.',
      type: 'DateTime',
      nullable: true,
    }),
    createdAt: t.expose('createdAt', { description: 'When it was enqueued.', type: 'DateTime' }),
  }),
});

const ApprovalLinkType = builder.objectRef<ApprovalLinkView>('ApprovalLink').implement({
  description: 'What a one-time link from a notification opens.',
  fields: (t) => ({
    call: t.field({ description: 'The call.', type: ToolCallType, resolve: (link) => link.call }),
    expiresAt: t.expose('expiresAt', {
      description: 'After this the link decides nothing.',
      type: 'DateTime',
    }),
    usedAt: t.expose('usedAt', {
      description: 'When a decision used it; null while unused (it counts once).',
      type: 'DateTime',
      nullable: true,
    }),
  }),
});

const CreateNotificationTargetInput = builder.inputType('CreateNotificationTargetInput', {
  description: 'A new notification target.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description: '1-64 characters of a-z 0-9 _ -, starting with a letter.',
    }),
    kind: t.field({ type: NotificationKindEnum, required: true, description: 'The body shape.' }),
    url: t.string({ required: true, description: 'An http(s) URL without credentials or fragment.' }),
    events: t.field({ type: [NotificationEventKindEnum], required: true, description: 'At least one.' }),
    consoleUrl: t.string({ description: 'The console base URL; without it notifications carry no link.' }),
    secret: t.string({ description: 'Signs each body (write-only), at least 16 characters.' }),
    enabled: t.boolean({ description: 'Default true.' }),
  }),
});

const UpdateNotificationTargetInput = builder.inputType('UpdateNotificationTargetInput', {
  description: 'Changes to a target; fields left out are kept.',
  fields: (t) => ({
    name: t.string({ description: 'A new name.' }),
    url: t.string({ description: 'A new URL.' }),
    events: t.field({ type: [NotificationEventKindEnum], description: 'The new list, at least one.' }),
    consoleUrl: t.string({ description: 'A new console base URL; null removes the links.' }),
    secret: t.string({ description: 'A new secret (write-only); null stops signing.' }),
    enabled: t.boolean({ description: 'Turns it on or off.' }),
  }),
});

builder.queryFields((t) => ({
  notificationTargets: t.field({
    description: 'Every notification target. ADMIN only.',
    type: [NotificationTargetType],
    authScopes: scopes.admin,
    resolve: (_root, _args, ctx) => ctx.services.notifications.targets.list(),
  }),
  notificationDeliveries: t.field({
    description:
      'Recent deliveries, newest first, optionally of one target or call (first: 1-200, default 50). ADMIN only.',
    type: [NotificationDeliveryType],
    authScopes: scopes.admin,
    args: {
      targetId: t.arg.id({ description: 'Only this target.' }),
      callId: t.arg.id({ description: 'Only this call.' }),
      first: t.arg.int({ description: 'How many, 1-200; default 50.' }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.notifications.deliveries({
        targetId: args.targetId == null ? null : String(args.targetId),
        callId: args.callId == null ? null : String(args.callId),
        first: args.first,
      }),
  }),
  approvalLink: t.field({
    description:
      'What a one-time link opens: its call, expiry and whether it was used. An expired link is still shown (with its expiresAt); a forged or altered token is BAD_USER_INPUT; null when this token may not see the call. ADMIN and APPROVER.',
    type: ApprovalLinkType,
    nullable: true,
    authScopes: scopes.deciders,
    args: { token: t.arg.string({ description: 'The `link` parameter of the URL.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.notifications.approvalLink(args.token, ctx.principal!),
  }),
}));

builder.mutationFields((t) => ({
  createNotificationTarget: t.field({
    description: 'Adds a notification target. ADMIN only.',
    type: NotificationTargetType,
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The target.',
        type: CreateNotificationTargetInput,
        required: true,
        validate: { schema: createTargetInputSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.notifications.targets.create(args.input, actorOf(ctx.principal)),
  }),
  updateNotificationTarget: t.field({
    description: 'Changes a notification target; NOT_FOUND when there is none. ADMIN only.',
    type: NotificationTargetType,
    authScopes: scopes.admin,
    args: {
      id: t.arg.id({ description: 'The target id.', required: true }),
      input: t.arg({
        description: 'The changes.',
        type: UpdateNotificationTargetInput,
        required: true,
        validate: { schema: updateTargetInputSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.notifications.targets.update(String(args.id), args.input, actorOf(ctx.principal)),
  }),
  deleteNotificationTarget: t.field({
    description:
      'Removes a notification target and its pending deliveries; NOT_FOUND when there is none. ADMIN only.',
    type: NotificationTargetType,
    authScopes: scopes.admin,
    args: { id: t.arg.id({ description: 'The target id.', required: true }) },
    resolve: (_root, args, ctx) =>
      ctx.services.notifications.targets.remove(String(args.id), actorOf(ctx.principal)),
  }),
}));
