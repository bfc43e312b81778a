// qkv-lesson where there is no DOM (a server render: Astro's frontmatter, Next's server components, plain Node):
// package.json's "node" export. The element needs a browser, so here the import defines nothing, registers
// nothing and reads nothing; the page's own <script> import defines <qkv-lesson> in the browser.
export const QkvLessonElement = undefined;
