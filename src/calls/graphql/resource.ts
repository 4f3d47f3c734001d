import { builder, scopes } from '../../graphql/builder.js';
import { linkedToRunWhere, readResource } from '../resource-store.js';
import { runScope } from '../run-service.js';

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
      'A resource is readable through the runs that refer to it: agents read those of their own runs, approvers and viewers those of runs of their users; ADMIN and tokens for every user read any. Anything else is null, as if it did not exist. Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: {
      uri: t.arg.string({
        description: 'A `resource://sha256/…` address from a result or resource_ref.',
        required: true,
      }),
    },
    resolve: async (_root, args, ctx) => {
      const db = ctx.services.database.db;
      const row = await readResource(db, args.uri);
      if (!row) return null;
      // Content is shared by hash, so it is readable through any run in scope that refers to it.
      const scope = runScope(ctx.principal!);
      if (scope && !(await linkedToRunWhere(db, args.uri, scope))) return null;
      return row;
    },
  }),
}));
