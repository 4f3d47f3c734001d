import { builder, scopes } from '../../graphql/builder.js';
import { readResource, runsOfResource } from '../resource-store.js';

interface ResourceView {
  uri: string;
  mimeType: string;
  size: number;
  sha256: string;
  content: Buffer;
}

const isText = (mime: string) => /^text\/|json|xml|javascript|yaml/.test(mime);

const ResourceType = builder.objectRef<ResourceView>('Resource').implement({
  description: 'Content stored once by sha256: large tool output, images, audio.',
  fields: (t) => ({
    uri: t.exposeString('uri', { description: 'Its address, `resource://sha256/<hash>`.' }),
    mimeType: t.exposeString('mimeType', { description: 'The media type it was stored with.' }),
    size: t.exposeInt('size', { description: 'Its length in bytes.' }),
    sha256: t.exposeString('sha256', { description: 'The sha256 of the content, in hex.' }),
    text: t.string({
      nullable: true,
      description: 'The content, for textual types.',
      resolve: (r) => (isText(r.mimeType) ? r.content.toString('utf8') : null),
    }),
    base64: t.string({
      description: 'The content as base64, for any type.',
      resolve: (r) => r.content.toString('base64'),
    }),
  }),
});

builder.queryFields((t) => ({
  resource: t.field({
    type: ResourceType,
    nullable: true,
    description:
      'Agents may read resources of their own runs; people may read any. Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: {
      uri: t.arg.string({
        description: 'A `resource://sha256/…` address from a result or resource_ref.',
        required: true,
      }),
    },
    resolve: async (_root, args, ctx) => {
      const row = await readResource(ctx.services.database.db, args.uri);
      if (!row) return null;
      if (ctx.principal!.role === 'AGENT') {
        const runIds = await runsOfResource(ctx.services.database.db, args.uri);
        const readable = await Promise.all(runIds.map((id) => ctx.services.runs.get(id, ctx.principal!)));
        if (!readable.some(Boolean)) return null;
      }
      return row;
    },
  }),
}));
