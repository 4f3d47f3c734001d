import { readdirSync, statSync } from 'node:fs';

/**
 * `npm run bench -- <name> [args]` runs bench/<name>/index.ts. Each benchmark measures its target
 * and a baseline in the same run on the same machine and prints both; none asserts a timing.
 */
const benchDir = new URL('.', import.meta.url);
const available = readdirSync(benchDir).filter((name) => statSync(new URL(name, benchDir)).isDirectory());
const [name, ...args] = process.argv.slice(2);

if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <${available.join('|')}> [args]\n`);
  process.exit(name ? 2 : 0);
}

const bench = (await import(new URL(`./${name}/index.ts`, benchDir).href)) as {
  main(args: string[]): Promise<void>;
};
await bench.main(args);
process.exit(0);
