// Keeps the text as the user's draft `delay` ms after typing stops: one save at a time, never
// the text already kept, nothing while paused (a commit under way). A failed save is tried
// again `retry` ms later, or sooner when the text changes.

export interface AutosaveOptions {
  /** The text to keep (the text on screen). */
  read(): string | Promise<string>;
  /** Keeps `content` (PUT draft/). */
  save(content: string): Promise<void>;
  saved?(content: string, at: Date): void;
  failed?(error: unknown): void;
  delay?: number;
  retry?: number;
  now?: () => Date;
}

export class Autosaver {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private paused = 0;
  private kept: string;
  private readonly delay: number;
  private readonly retry: number;

  /** `kept` is the text already stored (the saved version's, or the draft's). */
  constructor(
    private readonly options: AutosaveOptions,
    kept: string,
  ) {
    this.kept = kept;
    this.delay = options.delay ?? 2000;
    this.retry = options.retry ?? 10000;
  }

  /** The text the server has (as a version or as the draft). */
  get baseline(): string {
    return this.kept;
  }

  /** A save is waiting for its time or under way. */
  get pending(): boolean {
    return this.timer !== null || this.running !== null;
  }

  /** The text changed: keep it once typing has stopped for `delay` ms. */
  changed(): void {
    this.schedule(this.delay);
  }

  /** The server has `text` now (a commit, a restored draft): no draft of it is needed. */
  reset(text: string): void {
    this.kept = text;
  }

  /** No saves until `resume` (nested pauses need as many resumes); a pending one is dropped. */
  pause(): void {
    this.paused++;
    this.cancel();
  }

  /** Saves again; keeps the text now when it differs from the server's. */
  resume(): void {
    if (this.paused > 0) this.paused--;
    if (!this.paused) this.schedule(this.delay);
  }

  /** Saves now what a pending save would have saved; resolves when it is kept. */
  async flush(): Promise<void> {
    if (this.timer === null && this.running === null) return;
    this.cancel();
    await this.idle();
    await this.run();
  }

  /** Resolves once no save is under way (a commit must not race a draft being kept). */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
  }

  /** Stops for good (the page is left). */
  dispose(): void {
    this.paused = Number.POSITIVE_INFINITY;
    this.cancel();
  }

  private cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(after: number): void {
    if (this.paused) return;
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run();
    }, after);
  }

  private async run(): Promise<void> {
    if (this.running) {
      // one save at a time: the newest text once this one is done
      this.again = true;
      return this.running;
    }
    this.running = this.save();
    try {
      await this.running;
    } finally {
      this.running = null;
    }
    if (this.again) {
      this.again = false;
      await this.run();
    }
  }

  private async save(): Promise<void> {
    if (this.paused) return;
    let content: string;
    try {
      content = await this.options.read();
    } catch (error) {
      this.options.failed?.(error);
      return;
    }
    if (content === this.kept || this.paused) return;
    try {
      await this.options.save(content);
    } catch (error) {
      this.options.failed?.(error);
      if (!this.paused && this.timer === null) this.schedule(this.retry);
      return;
    }
    this.kept = content;
    this.options.saved?.(content, (this.options.now ?? (() => new Date()))());
  }
}
