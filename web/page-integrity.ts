// Hashed files are sent immutable for a year (scripts/serve.mjs, docs/hosting.md), so one response cut short
// without a Content-Length would stay in the HTTP cache that long. The built pages (index.html, embed.html) name
// their hashed scripts and style sheet with an `integrity` (SHA-384 of the bytes the build wrote): a browser runs
// or applies none that arrived damaged. mend-damaged-files.js (web/public/), put after them, then asks the server
// for the page's hashed files past the cache and reloads once (docs/downloads.md).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';

// <script type="module" … src>, <link rel="modulepreload" … href>, <link rel="stylesheet" … href>.
const hashedReference = /<(script type="module"|link rel="modulepreload"|link rel="stylesheet")([^>]*?) (src|href)="(\.\/assets\/[^"]+)"/g;
const mendScript = 'mend-damaged-files.js';

// The page with an integrity on each hashed script and style sheet it names, from the files in its folder.
function withIntegrity(html: string, folder: string, page: string): string {
  const out = html.replace(hashedReference, (_, tag: string, attributes: string, name: string, reference: string) => {
    const digest = createHash('sha384').update(readFileSync(join(folder, reference))).digest('base64');
    return `<${tag}${attributes} integrity="sha384-${digest}" ${name}="${reference}"`;
  });
  if (out === html) throw new Error(`page-integrity.ts: ${page} names no hashed script or style sheet`);
  return out;
}

export function pageIntegrity(): Plugin {
  return {
    name: 'qkv-page-integrity',
    apply: 'build',
    // A classic script runs after the page's module scripts (defer keeps document order), where a strict CSP allows it.
    transformIndexHtml: {
      order: 'post',
      handler: (html) => html.replace('</head>', `  <script src="./${mendScript}" defer></script>\n  </head>`),
    },
    // Digests of the files as written: other plugins change chunks after the pages are made (Vite's preload
    // lists, the compile hint's banner). Before vite-plugin-pwa's closeBundle reads the pages for its precache.
    writeBundle(options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type !== 'asset' || !file.fileName.endsWith('.html')) continue;
        const path = join(options.dir!, file.fileName);
        writeFileSync(path, withIntegrity(readFileSync(path, 'utf8'), dirname(path), file.fileName));
      }
    },
  };
}
