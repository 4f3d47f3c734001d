import type { GraphiQLOptions } from 'graphql-yoga';
import { StaticAsset } from './asset.js';

/** Where GraphiQL's files are served; each name carries its content hash, so they never go stale. */
export const GRAPHIQL_PREFIX = '/graphiql/';

const immutable = 'public, max-age=31536000, immutable';

interface GraphiQLFiles {
  /** URL path → asset. */
  assets: Map<string, StaticAsset>;
  css: string;
  js: string;
  /** Starts GraphiQL from the page's JSON block: the page needs no inline script (script-src 'self'). */
  start: string;
  favicon: string;
  workers: Record<'editorWorkerService' | 'json' | 'graphql', string>;
}

let files: Promise<GraphiQLFiles> | undefined;

const START = `const config = JSON.parse(document.getElementById('graphiql-config').textContent);
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => config.workers[label] };
YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), config.options);
`;

function add(assets: Map<string, StaticAsset>, name: string, body: Buffer, contentType: string): string {
  const asset = new StaticAsset(body, contentType, immutable);
  const path = `${GRAPHIQL_PREFIX}${asset.etag}/${name}`;
  assets.set(path, asset);
  return path;
}

/**
 * GraphiQL as files of their own instead of yoga's page, which inlines 9 MB of script and styles into
 * every GET: the browser caches them for good, and each is compressed once per process. The bundle is
 * imported on the first GraphiQL request, not at start: loading its 9 MB costs the start a fifth of a second.
 */
function graphiqlFiles(): Promise<GraphiQLFiles> {
  files ??= import('@graphql-yoga/render-graphiql/graphiql').then(filesOf);
  return files;
}

function filesOf(bundle: typeof import('@graphql-yoga/render-graphiql/graphiql')): GraphiQLFiles {
  const assets = new Map<string, StaticAsset>();
  const js = 'application/javascript; charset=utf-8';
  const icon = /^data:([^;]+);base64,(.*)$/s.exec(bundle.favicon);
  return {
    assets,
    css: add(assets, 'graphiql.css', Buffer.from(bundle.css), 'text/css; charset=utf-8'),
    js: add(assets, 'graphiql.js', Buffer.from(bundle.js), js),
    start: add(assets, 'start.js', Buffer.from(START), js),
    favicon: icon ? add(assets, 'favicon.ico', Buffer.from(icon[2]!, 'base64'), icon[1]!) : bundle.favicon,
    workers: {
      editorWorkerService: add(assets, 'editor.worker.js', Buffer.from(bundle.editorWorkerService), js),
      json: add(assets, 'json.worker.js', Buffer.from(bundle.jsonWorker), js),
      graphql: add(assets, 'graphql.worker.js', Buffer.from(bundle.graphqlWorker), js),
    },
  };
}

/** The GraphiQL file at a path under GRAPHIQL_PREFIX; undefined for a name no file has. */
export async function graphiqlAsset(path: string): Promise<StaticAsset | undefined> {
  return (await graphiqlFiles()).assets.get(path);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `<` escaped too, so a value cannot end the script element it is written into. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * yoga's `renderGraphiQL`: the same page as @graphql-yoga/render-graphiql, with its files by
 * reference and its settings in a JSON block that a served file reads, so no script is inline.
 */
export async function renderGraphiQL(options?: GraphiQLOptions): Promise<string> {
  const f = await graphiqlFiles();
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(options?.title || 'GraphiQL')}</title>
    <link rel="icon" href="${escapeHtml(options?.favicon || f.favicon)}" />
    <link rel="stylesheet" href="${f.css}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-config">${scriptJson({ workers: f.workers, options: options ?? {} })}</script>
    <script src="${f.js}"></script>
    <script src="${f.start}"></script>
  </body>
</html>
`;
}
