// A .wasm downloaded and checked against what the build shipped (web/wasm-integrity.ts) before it is compiled: a
// response cut short (a proxy that drops a chunked response, a connection lost without a Content-Length) or
// changed on the way is not used. The byte length always; the SHA-256 too where the browser has Web Crypto
// (secure contexts: https and localhost).
//
// Such a response of a hashed file is cached as immutable, and would come back from the HTTP cache for a year.
// So bytes that fail the check are asked for once more from the server (cache: 'reload', which also replaces the
// cached copy), and after any failed download every later one (Retry) goes past the cache too: one bad response
// costs one more request, and a load after a damaged one mends itself.
export interface ShippedBytes {
  size: number;
  sha256: string; // hex
}

// Why a download failed, in words the caller puts in its own message: 'network' (the request failed), 'http' (an
// error status), 'broken' (the body broke off), 'damaged' (the bytes are not the build's).
export class DownloadFailure extends Error {
  constructor(
    readonly kind: 'network' | 'http' | 'broken' | 'damaged',
    message: string,
  ) {
    super(message);
  }
}

const count = (n: number): string => n.toLocaleString('en-US');
const hex = (digest: ArrayBuffer): string => [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// null when `bytes` are the build's; else what is wrong with them, in words.
export async function damageOf(bytes: ArrayBuffer, shipped: ShippedBytes): Promise<string | null> {
  if (bytes.byteLength !== shipped.size) return `${count(bytes.byteLength)} bytes arrived of ${count(shipped.size)}`;
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null; // not a secure context: the length is all that can be checked
  return hex(await subtle.digest('SHA-256', bytes)) === shipped.sha256 ? null : 'its bytes are not the build’s (SHA-256 differs)';
}

export class CheckedDownload {
  private pastTheCache = false;

  constructor(
    private readonly url: string,
    private readonly shipped: ShippedBytes,
  ) {}

  // The file's bytes, checked; throws a DownloadFailure. `beforeFirst` is awaited before a request that may use
  // the cache (the built page's preload of the same request: core.ts).
  async bytes(beforeFirst?: () => Promise<void>): Promise<ArrayBuffer> {
    try {
      let bytes = await this.request(beforeFirst);
      let damage = await damageOf(bytes, this.shipped);
      if (damage && !this.pastTheCache) {
        this.pastTheCache = true; // they may have come from the cache: once more from the server
        bytes = await this.request();
        damage = await damageOf(bytes, this.shipped);
      }
      if (damage) throw new DownloadFailure('damaged', damage);
      return bytes;
    } catch (error) {
      this.pastTheCache = true;
      throw error;
    }
  }

  private async request(beforeFirst?: () => Promise<void>): Promise<ArrayBuffer> {
    let response: Response;
    try {
      if (!this.pastTheCache) await beforeFirst?.();
      response = await fetch(this.url, this.pastTheCache ? { cache: 'reload' } : {});
    } catch (error) {
      throw new DownloadFailure('network', `the network request failed (${messageOf(error)})`);
    }
    if (!response.ok) throw new DownloadFailure('http', `the server answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    try {
      return await response.arrayBuffer();
    } catch (error) {
      throw new DownloadFailure('broken', `the download broke off (${messageOf(error)})`);
    }
  }
}
