import { type Command, UsageError } from '../../cli/command.js';
import type { DeliveryRow } from './deliver.js';
import type { NotificationService } from './service.js';
import {
  type NotificationEventKind,
  type NotificationKind,
  notificationEventKinds,
  notificationKinds,
} from './shapes.js';
import { type NotificationTarget, publicTarget } from './targets.js';

const CLI_ACTOR = 'cli:notifications';

function describeTarget(target: NotificationTarget): string {
  const shown = publicTarget(target);
  return `${shown.id}  ${shown.name}  ${shown.kind.toLowerCase()}  ${shown.events.join(',')}  ${
    shown.hasSecret ? 'signed' : 'unsigned'
  }  ${shown.consoleUrl ? `links to ${shown.consoleUrl}` : 'no links'}${shown.enabled ? '' : '  disabled'}`;
}

function describeDelivery(d: DeliveryRow): string {
  const answer = d.lastStatusCode === null ? (d.lastError ?? '-') : `HTTP ${d.lastStatusCode}`;
  return `${d.id}  ${d.createdAt.toISOString()}  ${d.event}  call ${d.callId ?? '-'}  ${d.status}  attempts ${d.attempts}  ${answer}`;
}

function kindOf(value: unknown): NotificationKind {
  const kind = String(value ?? 'webhook')
    .toUpperCase()
    .replace(/-/g, '_');
  if (!(notificationKinds as readonly string[]).includes(kind))
    throw new UsageError(`--kind must be one of ${notificationKinds.map((k) => k.toLowerCase()).join(', ')}`);
  return kind as NotificationKind;
}

function eventsOf(value: unknown): NotificationEventKind[] {
  if (value === undefined) return [...notificationEventKinds];
  return String(value)
    .split(',')
    .map((event) => {
      const kind = event.trim().toUpperCase().replace(/-/g, '_');
      if (!(notificationEventKinds as readonly string[]).includes(kind))
        throw new UsageError(
          `--events takes a comma list of ${notificationEventKinds.join(', ')}, not ${event}`,
        );
      return kind as NotificationEventKind;
    });
}

/** A secret on the command line would land in shell history and `ps`: it is read from the variable `--secret-env` names. */
function secretOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv): string | undefined {
  const variable = values['secret-env'];
  if (variable === undefined) return undefined;
  const secret = env[String(variable)];
  if (!secret) throw new UsageError(`--secret-env names ${String(variable)}, which is not set`);
  return secret;
}

async function targetNamed(
  service: NotificationService,
  name: string | undefined,
): Promise<NotificationTarget> {
  if (!name) throw new UsageError('the target name is required');
  const target = await service.targets.byName(name);
  if (!target) throw new UsageError(`no notification target named ${name}`);
  return target;
}

type NotificationCommand = Command<{ notifications: NotificationService }>;

export const notificationCommands: NotificationCommand[] = [
  {
    path: ['notifications', 'list'],
    summary: 'List the notification targets (whether a secret is set, never its value).',
    usage: 'notifications list',
    async run(_args, services, io) {
      for (const target of await services.notifications.targets.list()) io.out(describeTarget(target));
      return 0;
    },
  },
  {
    path: ['notifications', 'add'],
    summary: 'Add a notification target.',
    usage:
      'notifications add <name> --url <url> [--kind webhook|chat_webhook] [--events APPROVAL_REQUESTED,APPROVAL_EXPIRING,CALL_DECIDED] [--console-url <url>] [--secret-env <VAR>] [--disabled]',
    options: {
      url: { type: 'string', description: 'where deliveries are POSTed' },
      kind: {
        type: 'string',
        description: 'webhook (signed JSON, default) or chat_webhook (Slack-compatible)',
      },
      events: { type: 'string', description: 'comma list; default all' },
      'console-url': { type: 'string', description: 'the console base URL for one-time links' },
      'secret-env': { type: 'string', description: 'read the signing secret from this environment variable' },
      disabled: { type: 'boolean', description: 'add it switched off' },
    },
    async run({ values, positionals }, services, io) {
      const [name] = positionals;
      if (!name) throw new UsageError('the target name is required');
      if (values.url === undefined) throw new UsageError('--url is required');
      const target = await services.notifications.targets.create(
        {
          name,
          kind: kindOf(values.kind),
          url: String(values.url),
          events: eventsOf(values.events),
          consoleUrl: values['console-url'] as string | undefined,
          secret: secretOf(values, process.env),
          enabled: values.disabled !== true,
        },
        CLI_ACTOR,
      );
      io.out(`added ${describeTarget(target)}`);
      return 0;
    },
  },
  {
    path: ['notifications', 'remove'],
    summary: 'Remove a notification target and its pending deliveries.',
    usage: 'notifications remove <name>',
    async run({ positionals }, services, io) {
      const target = await targetNamed(services.notifications, positionals[0]);
      await services.notifications.targets.remove(target.id, CLI_ACTOR);
      io.out(`removed ${target.name}`);
      return 0;
    },
  },
  {
    path: ['notifications', 'deliveries'],
    summary: 'Recent deliveries, newest first (of one target with --target).',
    usage: 'notifications deliveries [--target <name>] [--call <id>] [--first <n>]',
    options: {
      target: { type: 'string', description: 'only this target' },
      call: { type: 'string', description: 'only this call' },
      first: { type: 'string', description: 'how many, 1-200 (default 50)' },
    },
    async run({ values }, services, io) {
      const target =
        values.target === undefined ? null : await targetNamed(services.notifications, String(values.target));
      const first = values.first === undefined ? undefined : Number(values.first);
      if (first !== undefined && !Number.isInteger(first))
        throw new UsageError('--first must be a whole number');
      const deliveries = await services.notifications.deliveries({
        targetId: target?.id ?? null,
        callId: (values.call as string | undefined) ?? null,
        first,
      });
      for (const delivery of deliveries) io.out(describeDelivery(delivery));
      return 0;
    },
  },
];
