import { readFileSync } from 'node:fs';

/**
 * The scripts QuickJS evaluates in every new context before the user's code, in this order:
 * `codec` (sandbox/codec.js, the sandbox's half of the state codec) and `prelude`
 * (sandbox/prelude.js: the frozen clock, the budgets, the call across). Each file says what it
 * does. They are JavaScript for QuickJS, not modules of this program: they ship beside this
 * module as assets (scripts/copy-assets.mjs), the same files under the test runner (src/) and
 * built (dist/), read once each, on first need.
 */
export type SandboxScript = 'codec' | 'prelude';

const texts = new Map<SandboxScript, string>();

export function sandboxScript(name: SandboxScript): string {
  let text = texts.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`./sandbox/${name}.js`, import.meta.url), 'utf8');
    texts.set(name, text);
  }
  return text;
}
