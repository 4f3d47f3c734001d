import { type Command, UsageError } from '../../cli/command.js';
import {
  type ModelConnection,
  type SamplingField,
  type SetModelConnectionInput,
  wireFormats,
} from './connection-input.js';
import type { ModelConnectionService } from './service.js';

const CLI_ACTOR = 'cli:model-connection';

/** `--header Name=value`, repeatable. */
function headerPairs(values: unknown): Array<{ name: string; value: string }> | undefined {
  if (values === undefined) return undefined;
  return (values as string[]).map((entry) => {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`--header takes Name=value, not ${JSON.stringify(entry)}`);
    return { name: entry.slice(0, at), value: entry.slice(at + 1) };
  });
}

function formatOf(value: unknown): SetModelConnectionInput['wireFormat'] {
  const format = String(value ?? '').toUpperCase();
  if (!(wireFormats as readonly string[]).includes(format))
    throw new UsageError(`--format must be one of ${wireFormats.map((f) => f.toLowerCase()).join(', ')}`);
  return format as SetModelConnectionInput['wireFormat'];
}

function numberOf(value: unknown, option: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isFinite(number))
    throw new UsageError(`--${option} must be a number, not ${JSON.stringify(value)}`);
  return number;
}

/**
 * A key on the command line would land in shell history and `ps`: it is read from the environment
 * variable `--api-key-env` names instead.
 */
function apiKeyOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv): string | null | undefined {
  if (values['clear-api-key'] === true) return null;
  const variable = values['api-key-env'];
  if (variable === undefined) return undefined;
  const key = env[String(variable)];
  if (!key) throw new UsageError(`--api-key-env names ${String(variable)}, which is not set`);
  return key;
}

const SAMPLING_OPTIONS: Record<string, SamplingField> = {
  temperature: 'temperature',
  'top-p': 'topP',
  'top-k': 'topK',
  'max-output-tokens': 'maxOutputTokens',
  'presence-penalty': 'presencePenalty',
  'frequency-penalty': 'frequencyPenalty',
  seed: 'seed',
};

export function describeConnection(c: ModelConnection): string {
  const sampling = Object.entries(c.sampling)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : v}`)
    .join(' ');
  const headers = Object.keys(c.headers).length ? `  headers: ${Object.keys(c.headers).join(', ')}` : '';
  return `${c.name}  ${c.wireFormat.toLowerCase()}  ${c.model}  ${c.baseUrl}  timeout ${c.timeoutMs}ms  ${
    c.apiKey === null ? 'no api key' : 'api key set'
  }${sampling ? `  ${sampling}` : ''}${headers}`;
}

type ModelCommand = Command<{ modelConnections: ModelConnectionService }>;

export const modelConnectionCommands: ModelCommand[] = [
  {
    path: ['model-connection', 'set'],
    summary: 'Create or replace a model connection (a key or headers left out are kept).',
    usage:
      'model-connection set <name> --format <openai_chat|openai_responses|anthropic|gemini> --model <model> [--base-url <url>] [--api-key-env <VAR> | --clear-api-key] [--header K=V]... [--clear-headers] [--timeout-ms <ms>] [--temperature <t>] [--top-p <p>] [--top-k <k>] [--max-output-tokens <n>] [--stop <text>]... [--presence-penalty <p>] [--frequency-penalty <p>] [--seed <n>]',
    options: {
      format: { type: 'string', description: 'the wire format' },
      model: { type: 'string', description: 'the model name' },
      'base-url': { type: 'string', description: 'endpoint with its version path (default: the public API)' },
      'api-key-env': { type: 'string', description: 'read the API key from this environment variable' },
      'clear-api-key': { type: 'boolean', description: 'remove the stored API key' },
      header: {
        type: 'string',
        multiple: true,
        description: 'Name=value, repeatable (values are never shown)',
      },
      'clear-headers': { type: 'boolean', description: 'remove the stored headers' },
      'timeout-ms': { type: 'string', description: 'silence allowed before and within an answer' },
      temperature: { type: 'string', description: 'sampling temperature' },
      'top-p': { type: 'string', description: 'nucleus sampling' },
      'top-k': { type: 'string', description: 'top-k sampling' },
      'max-output-tokens': { type: 'string', description: 'most tokens per answer' },
      stop: { type: 'string', multiple: true, description: 'a stop sequence, repeatable' },
      'presence-penalty': { type: 'string', description: 'presence penalty' },
      'frequency-penalty': { type: 'string', description: 'frequency penalty' },
      seed: { type: 'string', description: 'sampling seed' },
    },
    async run({ values, positionals }, services, io) {
      const [name] = positionals;
      if (!name) throw new UsageError('the connection name is required');
      if (values.model === undefined) throw new UsageError('--model is required');
      const sampling: Record<string, unknown> = {};
      for (const [option, field] of Object.entries(SAMPLING_OPTIONS)) {
        const value = numberOf(values[option], option);
        if (value !== undefined) sampling[field] = value;
      }
      if (values.stop !== undefined) sampling.stopSequences = values.stop;
      const connection = await services.modelConnections.set(
        {
          name,
          wireFormat: formatOf(values.format),
          model: String(values.model),
          baseUrl: values['base-url'] as string | undefined,
          timeoutMs: numberOf(values['timeout-ms'], 'timeout-ms'),
          sampling,
          apiKey: apiKeyOf(values, process.env),
          headers: values['clear-headers'] === true ? [] : headerPairs(values.header),
        },
        CLI_ACTOR,
      );
      io.out(`set ${describeConnection(connection)}`);
      return 0;
    },
  },
  {
    path: ['model-connection', 'list'],
    summary: 'List the model connections (whether a key is set and header names only).',
    usage: 'model-connection list',
    async run(_args, services, io) {
      for (const connection of await services.modelConnections.list()) io.out(describeConnection(connection));
      return 0;
    },
  },
  {
    path: ['model-connection', 'remove'],
    summary: 'Remove a model connection.',
    usage: 'model-connection remove <name>',
    async run({ positionals }, services, io) {
      const [name] = positionals;
      if (!name) throw new UsageError('the connection name is required');
      await services.modelConnections.remove(name, CLI_ACTOR);
      io.out(`removed ${name}`);
      return 0;
    },
  },
];
