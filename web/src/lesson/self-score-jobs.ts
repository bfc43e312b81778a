// The self-score section's long calls, the same wherever they run (self-score-worker.ts, or the page's
// thread where a worker cannot start).
import type { QkvCore, Request, SeedSearchRequest, SeedSearchResponse, SelfScoreRequest, SelfScoreSummaryResponse } from './core-api';

export type SelfScoreJob = { kind: 'summary'; request: SelfScoreRequest } | { kind: 'search'; request: Request<SeedSearchRequest> };

export function runSelfScoreJob(core: QkvCore, job: SelfScoreJob, onProgress: (tried: number) => void): SelfScoreSummaryResponse<Float64Array> | SeedSearchResponse {
  return job.kind === 'summary' ? core.selfScoreSummary(job.request) : core.findSeedWithProgress(job.request, onProgress);
}
