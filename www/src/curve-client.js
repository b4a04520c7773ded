// Sends plot jobs to the curve worker: at most one running and one waiting, the waiting one
// replaced by each newer job, so that a dragged slider never builds a queue.

export class CurveClient {
  /**
   * @param {(result: { id: number, budget: number, budgets?: number[], totals?: number[], error?: string }) => void} onResult
   * @param {(message: string) => void} onFailure  The worker itself failed (did not load).
   */
  constructor(onResult, onFailure) {
    this.worker = new Worker(new URL('./curve-worker.js', import.meta.url), { type: 'module' });
    this.running = false;
    this.waiting = null;
    this.lastId = 0;
    this.worker.onmessage = ({ data }) => {
      this.running = false;
      this.sendWaiting();
      onResult(data);
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.running = false;
      onFailure(event.message || 'the plot worker could not start');
    };
  }

  /** @param {{ columns: object, strategy: object, budget: number }} job @returns {number} the job's id */
  request(job) {
    this.waiting = { ...job, id: ++this.lastId };
    if (!this.running) this.sendWaiting();
    return this.lastId;
  }

  sendWaiting() {
    if (this.waiting === null) return;
    this.running = true;
    this.worker.postMessage(this.waiting);
    this.waiting = null;
  }
}
