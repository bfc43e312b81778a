// Prerenders the lesson's opening into index.html and embed.html at build time, so that a learner reads it, and
// can start typing, before the WebAssembly core arrives (issue 42). The opening is made by the lesson's own
// components (src/lesson/opening.ts), loaded through Vite in Node with linkedom for a DOM, from the numbers of the
// page's own WebAssembly core loaded in Node. It goes into <qkv-lesson> as a declarative shadow root with a link
// to the lesson's style sheets as a file (a strict CSP allows no inline style); the element adopts it at connect
// and at ready its view takes the opening's nodes as its own (src/lesson/prerendered.ts).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { transform } from 'esbuild';
import { parseHTML } from 'linkedom';
import { createServer, type Plugin, type PluginOption } from 'vite';
import { rulesUsedBy } from './rules-used.ts';

const web = resolve(import.meta.dirname, '..');
const lessonTag = /<qkv-lesson([^>]*)><\/qkv-lesson>/;

export interface Opening {
  html: string; // the opening's <article>
  css: string; // the lesson's style sheets, as the element's constructed sheets hold them
}

// The element's first instance's id prefix (element.ts: qkv1, qkv2…): the prerender stands for the first lesson.
const idPrefix = 'qkv1';

async function loadCore(): Promise<unknown> {
  const { default: create } = await import(resolve(web, 'src/wasm/qkv.mjs'));
  return create({ wasmBinary: await readFile(resolve(web, 'src/wasm/qkv.wasm')) });
}

// `plugins`: those the lesson's modules need to load (virtual:math, KaTeX's style sheet as the build has it).
export async function renderOpening(plugins: PluginOption[]): Promise<Opening> {
  const { document, window } = parseHTML('<!doctype html><html><body></body></html>');
  const globals = { document, window, Node: window.Node, HTMLElement: window.HTMLElement, HTMLInputElement: window.HTMLInputElement, HTMLFormElement: window.HTMLFormElement };
  Object.assign(globalThis, globals);
  const server = await createServer({ root: web, configFile: false, logLevel: 'error', plugins, server: { middlewareMode: true, hmr: false, ws: false }, appType: 'custom', optimizeDeps: { noDiscovery: true } });
  try {
    const opening = await server.ssrLoadModule('/src/lesson/opening.ts');
    const { LessonController } = await server.ssrLoadModule('/src/lesson/controller.ts');
    const { lessonCssTexts } = await server.ssrLoadModule('/src/lesson/lesson-sheets.ts');
    const controller = new LessonController(await loadCore());
    const article = opening.renderOpening(controller.fixtureEvidence, controller.exercises(), idPrefix) as HTMLElement;
    return { html: article.outerHTML, css: await minified(rulesUsedBy(article, (lessonCssTexts as string[]).join('\n'))) };
  } finally {
    await server.close();
    for (const name of Object.keys(globals)) delete (globalThis as Record<string, unknown>)[name];
  }
}

// The sheets as Vite's dev server gives them are not minified (31.9 kB, 9.1 kB gzip; 5.6 kB minified); the rules the
// opening uses, minified, are 1.4 kB. Nothing is lowered (target esnext): the rules stay the ones written.
async function minified(css: string): Promise<string> {
  const { code, warnings } = await transform(css, { loader: 'css', minify: true, target: 'esnext' });
  if (warnings.length) throw new Error(`minifying the prerendered opening's style sheet: ${warnings.map((warning) => warning.text).join('; ')}`);
  return code;
}

// The element's content: the opening as a declarative shadow root linking its style sheet at `cssHref` (an
// attribute's text: escaped by the caller). The npm package's server render writes the same (server-opening.ts).
export function openingTemplate(cssHref: string, article: string): string {
  return `<template shadowrootmode="open"><link rel="stylesheet" crossorigin href="${cssHref}" />${article}</template>`;
}

// `api.openingPlugins`: the same plugins, for the npm package's build (vite.lib.config.ts, server-opening.ts).
export function prerenderedOpening(plugins: () => PluginOption[]): Plugin {
  let opening: Opening | undefined;
  let cssFile = '';
  return {
    name: 'qkv-prerendered-opening',
    apply: 'build',
    api: { openingPlugins: plugins },
    async buildStart() {
      opening = await renderOpening(plugins());
      // A style attribute would be refused under the lesson's CSP (no 'unsafe-inline').
      if (/\sstyle=/.test(opening.html)) this.error('the prerendered opening has a style attribute, which a strict CSP refuses');
      cssFile = `assets/qkv-lesson-${createHash('sha256').update(opening.css).digest('hex').slice(0, 8)}.css`;
      this.emitFile({ type: 'asset', fileName: cssFile, source: opening.css });
    },
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        if (!opening || !lessonTag.test(html)) return html;
        const { html: article } = opening;
        // A page's relative URL to the style sheet: index.html and embed.html sit at dist/'s root.
        const shadow = openingTemplate(`./${cssFile}`, article);
        return html.replace(lessonTag, (_, attributes: string) => `<qkv-lesson${attributes} data-prerendered="">${shadow}</qkv-lesson>`);
      },
    },
  };
}
