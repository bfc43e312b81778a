// The self-score section's Web Worker: the same WebAssembly core as the page, running the calls that can
// take seconds (the experiment at up to 512 × 512, the seed searches) off the page's thread.
import { createCore } from './core';
import type { QkvCore } from './core-api';
import { runSelfScoreJob, type SelfScoreJob } from './self-score-jobs';
import { serveJobs } from './worker-jobs';

// The same module as the page's: with SIMD where the engine has it (core.ts decides). If it cannot load here
// (its .wasm refused to the worker, say), the page runs the jobs with the core it already has.
serveJobs<QkvCore, SelfScoreJob>(createCore(), runSelfScoreJob);
