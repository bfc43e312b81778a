// Loads the WebAssembly core once per page, however many <qkv-lesson> elements there are.
import createQkvModule from '../wasm/qkv.mjs';
import type { QkvCore } from './core-api';

let loading: Promise<QkvCore> | undefined;

export function loadCore(): Promise<QkvCore> {
  loading ??= createQkvModule().then((module) => module as QkvCore);
  return loading;
}
