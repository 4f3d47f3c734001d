import { readFileSync, writeFileSync } from 'node:fs';
import { printedSchema } from '../src/graphql/schema.js';

/** `schema:print` writes schema.graphql; `--check` fails when the committed file is stale. */
const target = new URL('../schema.graphql', import.meta.url);
const printed = printedSchema();
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {}
  if (committed !== printed) {
    process.stderr.write('schema.graphql is stale: run `npm run schema:print` and commit it.\n');
    process.exit(1);
  }
  process.stdout.write('schema.graphql is up to date.\n');
} else {
  writeFileSync(target, printed);
  process.stdout.write('wrote schema.graphql\n');
}
