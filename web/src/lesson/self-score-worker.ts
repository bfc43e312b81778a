// The self-score section's Web Worker: the same WebAssembly core as the page, running the calls that can
// take seconds (the experiment at up to 512 × 512, the seed searches) off the page's thread.
import { createCore } from './core';
import { runSelfScoreJob, type SelfScoreJob } from './self-score-jobs';
import { serveJobs } from './worker-jobs';

// The same module as the page's: with SIMD where the engine has it (core.ts decides).
const loading = createCore();

serveJobs<SelfScoreJob>((job, onProgress) => loading.then((core) => runSelfScoreJob(core, job, onProgress)));
