// The self-score section's Web Worker: the same WebAssembly core as the page, running the calls that can
// take seconds (the experiment at up to 512 × 512, the seed searches) off the page's thread.
import type { QkvCore } from './core-api';
import { CoreLoadError, createCore, type CoreEngine } from './core-instance';
import { runSelfScoreJob, type SelfScoreJob } from './self-score-jobs';
import { serveJobs } from './worker-jobs';

// The page's compiled module (the first message), instantiated here with the matching Emscripten script: the
// .wasm is never downloaded a second time. Without one (a module the engine could not post), or if it cannot
// load here, the jobs are answered 'unavailable' and the page runs them with its own core.
serveJobs<QkvCore, SelfScoreJob>((given) => {
  const engine = given as CoreEngine | undefined;
  if (!(engine?.module instanceof WebAssembly.Module)) return Promise.reject(new CoreLoadError('the page could not hand its compiled module to this worker'));
  return createCore(Promise.resolve(engine), engine.simd);
}, runSelfScoreJob);
