// The scale section's Web Worker: the section's own WebAssembly module (scale-core.ts; with SIMD where the
// engine has it), running the layer at a model's size off the page's thread.
import { loadScaleCore } from './scale-core';
import { serveJobs } from './worker-jobs';

const loading = loadScaleCore();

serveJobs<string>((preset) => loading.then((core) => core.scale({ preset })));
