// What the SCORM browser tests share: the two packages (`npm run package` of the dist/ under test, unpacked in
// memory), a server for an LMS's pages around them (the host page that makes the API, the player frame below it,
// the package's launch page below that, so the adapter must search the parent chain), and the steps of a launch.
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { unzipSync } from 'fflate';
import { launchFile, makePackages } from '../../scripts/package-scorm.mjs';
import { csp, dist, waitLaidOut, waitReady } from './harness.mjs';

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.xml': 'application/xml', '.json': 'application/json' };

// Both zips, built into a temporary folder and read back: version → { files: Map(name → bytes), manifest }.
export async function readPackages() {
  const workDir = await mkdtemp(join(tmpdir(), 'qkv-scorm-'));
  try {
    const written = await makePackages({ dist, out: workDir });
    const packages = {};
    for (const [version, path] of Object.entries(written)) {
      const files = new Map(Object.entries(unzipSync(await readFile(path))));
      packages[version] = { files, manifest: new TextDecoder().decode(files.get('imsmanifest.xml')) };
    }
    return packages;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

const playerHtml = (version) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><title>Player</title></head>
<body><iframe title="Lesson" src="/pkg/${version}/${launchFile}" width="1200" height="800"></iframe></body></html>`;

// Serves /player/<version>.html, /pkg/<version>/<file of the zip>, and what `routes(path)` answers for the LMS's
// own pages ({ type, body } or undefined), under the harness's Content-Security-Policy. Returns { server, origin }.
export function startLmsServer(packages, routes) {
  const send = (response, type, body) => response.writeHead(200, { 'Content-Type': type, 'Content-Security-Policy': csp }).end(body);
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    let match;
    const own = await routes(path);
    if (own) send(response, own.type ?? types[extname(path)] ?? 'application/octet-stream', own.body);
    else if ((match = /^\/player\/(1\.2|2004)\.html$/.exec(path))) send(response, types['.html'], playerHtml(match[1]));
    else if ((match = /^\/pkg\/(1\.2|2004)\/(.+)$/.exec(path)) && packages[match[1]]?.files.has(normalize(match[2]))) {
      send(response, types[extname(match[2])] ?? 'application/octet-stream', packages[match[1]].files.get(normalize(match[2])));
    } else if (path === '/favicon.ico') response.writeHead(204).end();
    else response.writeHead(404).end('not found');
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

// The lesson's document: two frames below the host page.
export async function lessonFrame(page) {
  await page.waitForFunction(() => document.querySelector('iframe[title="Player"]')?.contentDocument?.querySelector('iframe[title="Lesson"]'));
  const handle = await page.frameLocator('iframe[title="Player"]').locator('iframe[title="Lesson"]').elementHandle();
  const frame = await handle.contentFrame();
  await frame.waitForURL(/\/pkg\//);
  await waitReady(frame);
  await waitLaidOut(frame);
  return frame;
}

// The LMS's player closes the lesson's frame (the learner exits): the lesson ends its session on the way out. The
// frame's old document is gone once it shows about:blank; what it still had in flight is left behind (navigateFrame).
export async function closeLessonFrame(page, frame, navigateFrame) {
  await navigateFrame(async () => {
    await page.frameLocator('iframe[title="Player"]').locator('iframe[title="Lesson"]').evaluate((iframe) => (iframe.src = 'about:blank'));
    await frame.waitForURL('about:blank');
  });
  await page.waitForFunction(() => window.lms.finished > 0, undefined, { timeout: 5000 });
}
