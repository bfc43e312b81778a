// WebAssembly starts in a baseline tier: evaluations while the page is idle let the engine compile the hot code
// optimised before the learner's first edit. One evaluation per slice, each its own task (whenIdle), so that no
// warm-up task holds the page's thread for long; nothing is rendered. The rounds done survive a disconnect.
import { whenIdle } from './idle';

export class WarmUp {
  private done = 0;
  private cancel?: () => void;

  constructor(
    private readonly rehearse: () => void,
    private readonly finished: () => void,
    private readonly rounds = 40,
  ) {}

  start(): void {
    if (this.cancel || this.done >= this.rounds) return;
    const slice = () => {
      const start = performance.now();
      this.rehearse();
      performance.measure('qkv-lesson-warm-up', { start }); // bench/engines-ready.mjs reads the longest slice
      this.cancel = undefined;
      if (++this.done < this.rounds) this.cancel = whenIdle(slice);
      else this.finished();
    };
    this.cancel = whenIdle(slice);
  }

  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }
}
