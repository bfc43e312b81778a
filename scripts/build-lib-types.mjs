// The npm package's types, dist-lib/qkv-lesson.d.ts: emitted by TypeScript from the package's entry
// (web/src/lesson/define.ts: the element, its event map and the types its public members use, with the source's
// doc comments) and bundled into one file by rollup-plugin-dts, so that nothing of the lesson's inside ships and
// nothing is written twice. `npm run build:lib` runs it after Vite has built dist-lib/ (docs/types.md).
//   node scripts/build-lib-types.mjs
import { resolve } from 'node:path';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';

const repo = resolve(import.meta.dirname, '..');

const bundle = await rollup({
  input: resolve(repo, 'web/src/lesson/define.ts'),
  plugins: [dts({ tsconfig: resolve(repo, 'tsconfig.json'), compilerOptions: { noEmit: false } })],
  // Only the DOM's own types stay outside; anything else reaching the public surface stops the build.
  onwarn(warning) {
    throw new Error(`qkv-lesson.d.ts: ${warning.message}`);
  },
});
try {
  await bundle.write({ file: resolve(repo, 'dist-lib/qkv-lesson.d.ts'), format: 'es' });
} finally {
  await bundle.close();
}
