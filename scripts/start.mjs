// `npm start`: builds dist/ when it is stale, then runs the server in this same process. A
// `prestart` script would make npm start a second node (and a shell) before the server's own.
await import('./build-if-stale.mjs');
await import('../dist/app/main.js');
