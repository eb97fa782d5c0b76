import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Comments cite the contributor docs (`docs/flow-format.md §5.5`). A citation a contributor
 * cannot follow is a defect: every cited `.md` file must exist in the repository and every
 * cited section must be a heading of it.
 */
const SOURCE = /^(src|test|console\/src|scripts|bench)\/.*\.(ts|tsx|mjs|js|lua|sql)$/;
const CITATION = /((?:docs\/)?[\w-]+\.md)((?:[ ,]+§ ?\d+(?:\.\d+)*)*)/g;

function sourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    encoding: 'utf8',
  });
  return listed.split('\n').filter((file) => SOURCE.test(file) && existsSync(file));
}

function brokenCitations(): string[] {
  const broken: string[] = [];
  const headings = new Map<string, string>();
  for (const file of sourceFiles()) {
    for (const match of readFileSync(file, 'utf8').matchAll(CITATION)) {
      const doc = match[1] ?? '';
      if (!existsSync(doc)) {
        broken.push(`${file}: cites ${doc}, which is not in the repository`);
        continue;
      }
      if (!headings.has(doc)) headings.set(doc, readFileSync(doc, 'utf8'));
      for (const [, section] of (match[2] ?? '').matchAll(/§ ?(\d+(?:\.\d+)*)/g)) {
        const heading = new RegExp(`^#{1,6} ${section!.replace(/\./g, '\\.')}\\.?\\s`, 'm');
        if (!heading.test(headings.get(doc) ?? ''))
          broken.push(`${file}: cites ${doc} §${section}, which has no such heading`);
      }
    }
  }
  return broken;
}

describe('doc citations in comments', () => {
  it('every cited doc file and section exists', () => {
    expect(brokenCitations()).toEqual([]);
  });

  it('sees the citations it checks (a pattern that matched nothing would pass vacuously)', () => {
    const cited = sourceFiles().filter((file) =>
      readFileSync(file, 'utf8').includes('docs/flow-format.md §'),
    );
    expect(cited.length).toBeGreaterThan(20);
  });
});
