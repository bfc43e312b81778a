// `import expected from '…/x.wasm?integrity'` gives { size, sha256 }: the byte length and SHA-256 (hex) of the .wasm
// the build ships (Vite copies it as it is under its hashed name), so that the code that downloads it can check
// the bytes before it uses them (src/lesson/download-check.ts). A response cut short, or changed on the way, is
// then told apart from a good one, and fetched again past the HTTP cache instead of being kept there for a year.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

const suffix = '?integrity';

export function wasmIntegrity(): Plugin {
  return {
    name: 'qkv-wasm-integrity',
    enforce: 'pre', // before Vite's asset plugin, which would emit the file again for this import
    load(id) {
      if (!id.endsWith(`.wasm${suffix}`)) return undefined;
      const path = id.slice(0, -suffix.length);
      this.addWatchFile(path);
      const bytes = readFileSync(path);
      const expected = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
      return `export default ${JSON.stringify(expected)};`;
    },
  };
}
