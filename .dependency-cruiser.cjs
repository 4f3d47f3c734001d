/**
 * Import rules for src/ (issue 11: one home per feature) and console/src. `npm run lint` fails on any violation;
 * test/app/import-rules.test.ts proves each rule bites. Paths are relative to the cruise's base directory.
 *
 * Several rules have more than one entry under the same name: one rule, with exceptions a single
 * entry cannot express (an exception that holds only for type-only imports, say).
 */

/** Node built-ins that reach the outside world: files, sockets, processes, threads, the terminal. */
const ioBuiltIns =
  '^(node:)?(fs|fs/promises|net|tls|dgram|dns|dns/promises|http|https|http2|child_process|cluster|worker_threads|readline|inspector)$';

/** Packages that talk to a database, serve or speak GraphQL, or open connections. */
const ioPackages = [
  '(^|/)node_modules/(postgres|@electric-sql/pglite|drizzle-orm|drizzle-kit)/',
  '(^|/)node_modules/(graphql|graphql-yoga|graphql-ws|@graphql-yoga/[^/]+|@pothos/[^/]+|@escape\\.tech/[^/]+)/',
  '(^|/)node_modules/(ws|@modelcontextprotocol/[^/]+)/',
];

/** Every module whose code does I/O, serves requests or composes the process. */
const ioModules = '^src/(db|journal|graphql|app|cli|calls|features|bridge|model)/';

/**
 * The restrictions shared by every pure area (core, rules folders, provider adapters): the entries
 * forbid I/O modules, I/O packages, and making a pino logger (naming its type is fine: types are erased).
 */
function pure(name, comment, from, allowedSrc) {
  return [
    {
      name,
      comment,
      severity: 'error',
      from,
      to: { path: ioModules, pathNot: allowedSrc },
    },
    {
      name,
      comment,
      severity: 'error',
      from,
      to: { dependencyTypes: ['core'], path: ioBuiltIns },
    },
    {
      name,
      comment,
      severity: 'error',
      from,
      to: { path: ioPackages },
    },
    {
      name,
      comment: `${comment} A pure file may name the Logger type; building a logger (which writes) belongs to the app.`,
      severity: 'error',
      from,
      to: { path: '(^|/)node_modules/pino/', dependencyTypesNot: ['type-only'] },
    },
  ];
}

/** Packages the console renders with or reaches the server through. */
const consoleIoPackages =
  '(^|/)node_modules/(react|react-dom|react-json-view-lite|scheduler|urql|@urql/[^/]+|wonka|graphql|graphql-ws|graphql-sse)/';

const features = '^src/(features|bridge)/';
const featureIndex = '^src/(features|bridge)/[^/]+/index\\.ts$';
const servicesType = '^src/app/services\\.ts$';
const entryPoints = '^src/app/(main|cli)\\.ts$';
const needServicesType = ['^src/graphql/context\\.ts$', '^src/cli/command\\.ts$'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No cycles of any kind, type-only imports included: a runtime cycle makes module evaluation order ' +
        'decide whether an import is still undefined, and a type cycle means two files each define part of ' +
        "the other's shape. A name is imported from the file that defines it (row types beside their tables).",
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...pure(
      'core-is-pure',
      'src/core holds the shared rules every module builds on; it must stay testable without a database, ' +
        'a network or a server, and must not depend on the modules that depend on it.',
      { path: '^src/core/' },
      [],
    ),
    ...pure(
      'rules-are-pure',
      "A rules/ folder is a module's pure logic: it sees only src/core and other rules/ files, never its " +
        "module's services, tables or I/O.",
      { path: '^src/.+/rules/' },
      ['/rules/'],
    ),
    ...pure(
      'providers-are-pure',
      'Provider adapters translate between the tool contract and each vendor format; the model service ' +
        'does the calling, so adapters stay pure and testable from fixtures.',
      { path: '^src/model/providers/' },
      ['^src/model/providers/'],
    ),
    {
      name: 'console-logic-is-pure',
      comment:
        "console/src/logic holds the console's decisions (queue reduction, filters, grants, quorum, patches) as " +
        'functions tested without a browser; of the console it sees only other logic files: api/ wraps the ' +
        'GraphQL clients and fetch, gql/ holds the documents they send, everything else renders or is a hook. ' +
        "Of the server it may share src/core, which core-is-pure keeps free of I/O (the look-alike marks of " +
        'core/reveal.ts are the same in the console and in notifications).',
      severity: 'error',
      from: { path: '^console/src/logic/' },
      to: { path: '^(console/src|src|test|bench|scripts)/', pathNot: ['^console/src/logic/', '^src/core/'] },
    },
    {
      name: 'console-logic-is-pure',
      comment: 'The console logic runs in the browser and in unit tests; no Node built-in belongs there.',
      severity: 'error',
      from: { path: '^console/src/logic/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'console-logic-is-pure',
      comment:
        'Pure packages are fine in the console logic; rendering (React), GraphQL clients and transports, ' +
        'and the server-side I/O packages are not.',
      severity: 'error',
      from: { path: '^console/src/logic/' },
      to: { path: [consoleIoPackages, ...ioPackages] },
    },
    {
      name: 'features-through-index',
      comment:
        "A feature or bridge is used by others only through its index.ts, so its internals can move without touching other modules. (src/calls may not import features at all: see lifecycle-does-not-import-features.)",
      severity: 'error',
      from: { path: '^src/(features|bridge)/([^/]+)/' },
      to: { path: features, pathNot: ['^src/$1/$2/', featureIndex] },
    },
    {
      name: 'features-through-index',
      comment: 'The model turn reaches features and bridges only through their index.ts.',
      severity: 'error',
      from: { path: '^src/model/' },
      to: { path: features, pathNot: featureIndex },
    },
    {
      name: 'calls-through-index',
      comment:
        'The call lifecycle is used through src/calls/index.ts, so its request, decision, dispatch and landing ' +
        'files can move without touching other modules. Direct imports stay for: tool-contract.ts and ' +
        "tool-kit.ts (what a tool implements, kept apart so tools never load the lifecycle), tables.ts (a table " +
        'and its row type are named where they are declared) and the GraphQL types in graphql/ (Pothos types ' +
        'are imported from the file that defines them).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/calls/' },
      to: {
        path: '^src/calls/',
        pathNot: '^src/calls/(index|tool-contract|tool-kit|tables)\\.ts$|^src/calls/graphql/',
      },
    },
    {
      name: 'journal-knows-no-lifecycle',
      comment:
        'The journal stores and streams events; it knows no runs, calls or approvals. Who may read which ' +
        "runs' events is a port the lifecycle gives it at assembly (RunReadAccess).",
      severity: 'error',
      from: { path: '^src/journal/' },
      to: { path: '^src/calls/' },
    },
    {
      name: 'lifecycle-does-not-import-features',
      comment:
        'The call lifecycle runs tools through the tool contract (tool-contract.ts) and must not know ' +
        'any tool family, bridge or the model turn: they depend on it, not the other way round.',
      severity: 'error',
      from: { path: '^src/calls/' },
      to: { path: '^src/(features|bridge|model)/' },
    },
    {
      name: 'tools-only-see-the-contract',
      comment:
        'Tools and executors are plugged into the lifecycle; they see it only through tool-contract.ts ' +
        'and tool-kit.ts, so the lifecycle can change behind that contract.',
      severity: 'error',
      from: { path: ['^src/features/[^/]+/tools/', '^src/bridge/[^/]+/executor\\.ts$'] },
      to: { path: '^src/calls/', pathNot: '^src/calls/(tool-contract|tool-kit)\\.ts$' },
    },
    {
      name: 'features-use-the-contract-only-in-tools',
      comment:
        "A feature's tools/ folder adapts tool invocations to its service; the service, rules, graphql and " +
        'cli work without knowing they are called by a tool.',
      severity: 'error',
      from: { path: '^src/features/[^/]+/', pathNot: '^src/features/[^/]+/tools/' },
      to: { path: '^src/calls/(tool-contract|tool-kit)\\.ts$' },
    },
    {
      name: 'only-graphql-types-import-graphql',
      comment:
        'The GraphQL layer (builder, scalars, errors, yoga) is for the GraphQL types of each module and the ' +
        'app that serves them; services and rules must work without it.',
      severity: 'error',
      from: { pathNot: ['(^|/)graphql\\.ts$', '(^|/)graphql/', '^src/app/'] },
      to: { path: '^src/graphql/' },
    },
    {
      name: 'nothing-imports-app',
      comment:
        'src/app is the composition root: it imports everything, and nothing imports it (or the services ' +
        'would be built from somewhere else).',
      severity: 'error',
      from: { pathNot: ['^src/app/', ...needServicesType] },
      to: { path: '^src/app/' },
    },
    {
      name: 'nothing-imports-app',
      comment:
        'The GraphQL context and the CLI command toolkit hand the built services to their callers, so they ' +
        'may name the Services type, and nothing else from src/app.',
      severity: 'error',
      from: { path: needServicesType },
      to: { path: '^src/app/', pathNot: servicesType },
    },
    {
      name: 'nothing-imports-app',
      comment: 'The Services type only: importing services.ts at runtime would run the composition root.',
      severity: 'error',
      from: { path: needServicesType },
      to: { path: servicesType, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'tables-from-their-module',
      comment:
        'db/schema.ts gathers every table for drizzle-kit and the client; a module takes another ' +
        "module's table from that module's tables.ts, so the dependency shows in the graph.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/db/' },
      to: { path: '^src/db/schema\\.ts$' },
    },
    {
      name: 'src-does-not-import-tests',
      comment: 'Tests and benchmarks may import anything from src; the product never depends on them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'no-orphans',
      comment: 'A file nothing imports and that imports nothing is dead code (or a forgotten entry point).',
      severity: 'error',
      from: { orphan: true, path: '^src/' },
      to: {},
    },
    {
      name: 'reachable-from-entry-points',
      comment:
        'Every src file serves the server (src/app/main.ts) or the CLI (src/app/cli.ts); one reachable ' +
        'from neither is dead code, even when it imports others (which no-orphans cannot see).',
      severity: 'error',
      from: { path: entryPoints },
      // src/db/schema.ts is drizzle-kit's entry (drizzle.config.ts), not the server's.
      to: { path: '^src/', pathNot: [entryPoints, '^src/db/schema[.]ts$'], reachable: false },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import the cruiser cannot resolve is an edge no rule above can check.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count as dependencies; rules that should ignore them say so with dependencyTypesNot.
    tsPreCompilationDeps: true,
    // Resolves the `.js` suffixes of TypeScript ESM imports to their `.ts` files.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
