// The scale section's Web Worker: the section's own WebAssembly module (scale-core.ts; with SIMD where the
// engine has it), running the layer at a model's size off the page's thread.
import type { ScaleCore } from './scale-api';
import { loadScaleCore } from './scale-core';
import { serveJobs } from './worker-jobs';

serveJobs<ScaleCore, string>(() => loadScaleCore(), (core, preset) => core.scale({ preset }));
