// Sends jobs to a worker (curve-worker.js): at most one running and one waiting, the waiting one
// replaced by each newer job, so that a dragged slider never builds a queue. A job still running
// after RESTART_AFTER_MS when a newer one waits is abandoned: the worker is replaced by a fresh one,
// so that one slow answer never holds up the answers to newer settings. Each result comes back
// with its job, so that the page can tell which settings it answers.

const RESTART_AFTER_MS = 300;

export class WorkerClient {
  /**
   * @param {(result: { id: number, partial?: boolean, error?: string } & Record<string, unknown>, job: object) => void} onResult
   *   Called with each result; a `partial` one is followed by the job's final result.
   * @param {(message: string) => void} onFailure  The worker itself failed (did not load).
   */
  constructor(onResult, onFailure) {
    this.onResult = onResult;
    this.onFailure = onFailure;
    this.running = null;
    this.startedAt = 0;
    this.waiting = null;
    this.lastId = 0;
    this.timer = undefined;
    this.start();
  }

  start() {
    this.worker = new Worker(new URL('./curve-worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }) => {
      const job = this.running;
      if (job === null || data.id !== job.id) return;
      if (!data.partial) {
        this.running = null;
        clearTimeout(this.timer);
        this.sendWaiting();
      }
      this.onResult(data, job);
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.running = null;
      this.onFailure(event.message || 'the worker could not start');
    };
  }

  /** @param {object} job  @returns {number} the job's id */
  request(job) {
    this.waiting = { ...job, id: ++this.lastId };
    if (this.running === null) this.sendWaiting();
    else this.restartIfSlow();
    return this.lastId;
  }

  /** Drops the waiting job, if any (the running one still answers). */
  cancelWaiting() {
    this.waiting = null;
  }

  /** Abandons the running job once it has run RESTART_AFTER_MS, if a newer one is still waiting then. */
  restartIfSlow() {
    clearTimeout(this.timer);
    const wait = this.startedAt + RESTART_AFTER_MS - performance.now();
    this.timer = setTimeout(() => {
      if (this.running === null || this.waiting === null) return;
      this.worker.terminate();
      this.running = null;
      this.start();
      this.sendWaiting();
    }, Math.max(0, wait));
  }

  sendWaiting() {
    if (this.waiting === null) return;
    this.running = this.waiting;
    this.startedAt = performance.now();
    this.worker.postMessage(this.waiting);
    this.waiting = null;
  }
}
