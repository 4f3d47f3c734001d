import { describe, expect, it } from 'vitest';
import { checkManifest, manifestMessage } from '../../../../src/features/workspace/rules/manifest.js';

const sizes = new Map([
  ['output/report.md', 120],
  ['output/empty.md', 0],
  ['summaries/blank.md', 0],
]);

describe('checkManifest', () => {
  it('accepts existing non-empty files and folders holding one', () => {
    expect(checkManifest(['output/report.md', 'output/'], sizes)).toEqual([]);
  });

  it('reports missing and empty files', () => {
    expect(checkManifest(['output/empty.md', 'output/figure.png'], sizes)).toEqual([
      { requirement: 'output/empty.md', problem: 'empty' },
      { requirement: 'output/figure.png', problem: 'missing' },
    ]);
  });

  it('reports folders with no file, or only empty ones', () => {
    expect(checkManifest(['plan/', 'summaries/'], sizes)).toEqual([
      { requirement: 'plan/', problem: 'missing' },
      { requirement: 'summaries/', problem: 'empty' },
    ]);
  });

  it('a folder requirement does not match a sibling sharing its prefix', () => {
    expect(checkManifest(['out/'], new Map([['output/x.md', 3]]))).toEqual([
      { requirement: 'out/', problem: 'missing' },
    ]);
  });

  it('checks a repeated requirement once', () => {
    expect(checkManifest(['plan/', 'plan/'], sizes)).toHaveLength(1);
  });

  it('names every problem in one message for the model', () => {
    expect(
      manifestMessage([
        { requirement: 'output/a.md', problem: 'missing' },
        { requirement: 'output/b.md', problem: 'empty' },
        { requirement: 'plan/', problem: 'missing' },
        { requirement: 'summaries/', problem: 'empty' },
      ]),
    ).toBe(
      'The work is not finished: output/a.md does not exist; output/b.md is empty; plan/ holds no file; ' +
        'summaries/ holds only empty files. Write the missing artifacts, then call workspace.finish again.',
    );
  });
});
