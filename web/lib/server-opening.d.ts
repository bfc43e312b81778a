// qkv-lesson/server (web/lib/server-opening.js): the prerendered opening for a server render (docs/npm.md).

/** What a server render writes: `html` inside <qkv-lesson>, `attributes` on it. */
export interface PrerenderedOpening {
  /** `<template shadowrootmode="open">`: a link to the opening's style sheet, then the opening (heading, intro, X, the weights, the opening question). */
  html: string;
  /** Marks the element as holding the prerender, as the lesson's own pages do. */
  attributes: { 'data-prerendered': '' };
}

/**
 * The lesson's opening, from the core's numbers at the package's build. `stylesheetUrl`: where the site serves
 * qkv-lesson/opening.css (with Vite or Astro: `import href from 'qkv-lesson/opening.css?url'`). Throws a TypeError
 * for anything but a non-empty string.
 */
export function prerenderedOpening(stylesheetUrl: string): PrerenderedOpening;
