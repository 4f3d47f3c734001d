import { actorOf } from '../../core/auth.js';
import { builder, scopes } from '../../graphql/builder.js';
import { ProviderEnum } from '../../model/graphql.js';
import { type ModelConnection, type Sampling, setModelConnectionInputSchema } from './connection-input.js';

const SamplingType = builder.objectRef<Sampling>('SamplingSettings').implement({
  description: 'Default sampling settings sent with every request; null where the provider default applies.',
  fields: (t) => ({
    temperature: t.float({ nullable: true, description: '0 to 2.', resolve: (s) => s.temperature }),
    topP: t.float({
      nullable: true,
      description: 'Nucleus sampling, above 0 up to 1.',
      resolve: (s) => s.topP,
    }),
    topK: t.int({
      nullable: true,
      description: 'Anthropic, Gemini, and OpenAI-compatible local servers.',
      resolve: (s) => s.topK,
    }),
    maxOutputTokens: t.int({
      nullable: true,
      description: 'The most tokens one answer may have (Anthropic needs one: 4096 when unset).',
      resolve: (s) => s.maxOutputTokens,
    }),
    stopSequences: t.stringList({
      nullable: true,
      description: 'Texts that end the answer.',
      resolve: (s) => s.stopSequences,
    }),
    presencePenalty: t.float({ nullable: true, description: '-2 to 2.', resolve: (s) => s.presencePenalty }),
    frequencyPenalty: t.float({
      nullable: true,
      description: '-2 to 2.',
      resolve: (s) => s.frequencyPenalty,
    }),
    seed: t.int({
      nullable: true,
      description: 'For repeatable sampling where supported.',
      resolve: (s) => s.seed,
    }),
  }),
});

const ModelConnectionType = builder.objectRef<ModelConnection>('ModelConnection').implement({
  description:
    'A model the server calls itself, configured by an admin. The API key and header values are write-only: only whether a key is set and the header names are shown.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The connection name, unique.' }),
    wireFormat: t.expose('wireFormat', { description: 'The wire format spoken.', type: ProviderEnum }),
    baseUrl: t.exposeString('baseUrl', {
      description:
        'Where requests go, version path included (`https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`).',
    }),
    model: t.exposeString('model', { description: 'The model name sent with each request.' }),
    sampling: t.expose('sampling', { description: 'Default sampling settings.', type: SamplingType }),
    timeoutMs: t.exposeInt('timeoutMs', {
      description:
        'How long the provider may stay silent (before its answer starts, or between two stream chunks).',
    }),
    hasApiKey: t.boolean({ description: 'Whether an API key is stored.', resolve: (c) => c.apiKey !== null }),
    headerNames: t.stringList({
      description: 'The names of the extra request headers (values are write-only).',
      resolve: (c) => Object.keys(c.headers),
    }),
    createdAt: t.expose('createdAt', { description: 'When it was added.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed.', type: 'DateTime' }),
  }),
});

const SamplingInput = builder.inputType('SamplingSettingsInput', {
  description: 'Sampling settings; a setting the wire format has no field for is refused.',
  fields: (t) => ({
    temperature: t.float({ description: '0 to 2.' }),
    topP: t.float({ description: 'Above 0 up to 1.' }),
    topK: t.int({ description: '1 to 1000; not OPENAI_RESPONSES.' }),
    maxOutputTokens: t.int({ description: '1 to 1,000,000.' }),
    stopSequences: t.stringList({ description: 'Up to 16; not OPENAI_RESPONSES.' }),
    presencePenalty: t.float({ description: '-2 to 2; OPENAI_CHAT and GEMINI.' }),
    frequencyPenalty: t.float({ description: '-2 to 2; OPENAI_CHAT and GEMINI.' }),
    seed: t.int({ description: 'OPENAI_CHAT and GEMINI.' }),
  }),
});

const HeaderInput = builder.inputType('ModelHeaderInput', {
  description: 'An extra request header.',
  fields: (t) => ({
    name: t.string({ description: 'The header name.', required: true }),
    value: t.string({ description: 'The value; it is stored but never shown again.', required: true }),
  }),
});

const SetModelConnectionInput = builder.inputType('SetModelConnectionInput', {
  description:
    'A connection, created or replaced as given. The API key and headers are write-only: left out, the stored ones are kept; `apiKey: null` removes the key, `headers: []` the headers.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'a-z 0-9 _ -, starting with a letter.' }),
    wireFormat: t.field({ type: ProviderEnum, required: true, description: 'The wire format spoken.' }),
    baseUrl: t.string({ description: "Version path included; the format's public endpoint when left out." }),
    model: t.string({ required: true, description: 'The model name.' }),
    sampling: t.field({ type: SamplingInput, description: 'Default sampling settings.' }),
    timeoutMs: t.int({ description: 'Silence allowed, 1000 to 3600000 ms; default 120000.' }),
    apiKey: t.string({ description: 'The API key (write-only).' }),
    headers: t.field({ type: [HeaderInput], description: 'Extra request headers (write-only).' }),
  }),
});

builder.queryFields((t) => ({
  modelConnections: t.field({
    description: 'Every model connection. ADMIN only.',
    type: [ModelConnectionType],
    authScopes: scopes.admin,
    resolve: (_root, _args, ctx) => ctx.services.modelConnections.list(),
  }),
  modelConnection: t.field({
    description: 'One model connection by name; null when there is none. ADMIN only.',
    type: ModelConnectionType,
    nullable: true,
    authScopes: scopes.admin,
    args: { name: t.arg.string({ description: 'The connection name.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.modelConnections.get(args.name),
  }),
}));

builder.mutationFields((t) => ({
  setModelConnection: t.field({
    description: 'Creates or replaces a model connection. ADMIN only.',
    type: ModelConnectionType,
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The connection.',
        type: SetModelConnectionInput,
        required: true,
        validate: { schema: setModelConnectionInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.modelConnections.set(args.input, actorOf(ctx.principal)),
  }),
  removeModelConnection: t.boolean({
    description: 'Removes a model connection. ADMIN only.',
    authScopes: scopes.admin,
    args: { name: t.arg.string({ description: 'The connection name.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.modelConnections.remove(args.name, actorOf(ctx.principal)),
  }),
}));
