// The virtual window: a scrolling element whose height is that of every row (a spacer), with
// only the rows on screen (and a few above and below) in the DOM, each ROW_HEIGHT high. A
// frame draws at most a screenful of rows, whatever the log's size, so scrolling stays smooth.
//
// Browsers cap an element's height (about 17 million pixels in Firefox, 33 million in Chromium),
// so past MAX_HEIGHT the scroll position is scaled: the spacer stays MAX_HEIGHT high and a pixel
// of scrolling moves more than a pixel of rows. When rows are added above what is on screen (a
// scope higher up got lines) the first row on screen stays where it was (scroll anchoring).

export const ROW_HEIGHT = 24; // WCAG 2.2 (target size): a header's button is at least 24 px high
export const MAX_HEIGHT = 15_000_000;
// rows drawn above and below the screen: few, since a scroll event draws at once
const OVERSCAN = 8;

export interface WindowSource {
  count(): number;
  /** A row's identity: an element drawn for a key is reused for it. */
  key(row: number): string;
  /** Draws `row` into `reuse` when it can (an element drawn before, for this key or another
   * row), or into a new element; returns the element. */
  draw(row: number, reuse: HTMLElement | null): HTMLElement;
  /** The row of a key now (-1: gone), to keep the first row on screen in place. */
  find?(key: string): number;
}

export interface WindowOptions {
  rowHeight?: number;
  overscan?: number;
  maxHeight?: number;
  /** The height on screen (tests give it: jsdom lays nothing out). */
  viewport?: () => number;
  /** The user scrolled (not the window itself); `atEnd`: to the last row. */
  onUserScroll?(atEnd: boolean, up: boolean): void;
  /** A frame was drawn. */
  onDrawn?(first: number, last: number): void;
  /** Asks for the next frame (tests draw at once). */
  frame?: (draw: () => void) => void;
}

interface Drawn {
  element: HTMLElement;
  generation: number;
}

export class VirtualWindow {
  readonly spacer: HTMLElement;
  readonly rows: HTMLElement;
  readonly rowHeight: number;
  /** Bumped when drawn rows may look different (a text arrived, the search changed…). */
  generation = 0;
  /** The rows drawn (overscan included). */
  first = 0;
  last = -1;
  private drawn = new Map<string, Drawn>();
  private pool: HTMLElement[] = [];
  private scheduled = false;
  private expected = -1; // the scrollTop the window set itself
  private lastTop = 0;
  private count = 0;
  private anchor: { key: string; row: number; offset: number } | null = null;
  private view = -1;
  /** The scroll position as last read or set (reading it after writing rows costs a layout). */
  private top = 0;
  private readonly options: WindowOptions;

  constructor(
    readonly scroller: HTMLElement,
    private readonly source: WindowSource,
    options: WindowOptions = {},
  ) {
    this.options = options;
    this.rowHeight = options.rowHeight ?? ROW_HEIGHT;
    const document = scroller.ownerDocument;
    // the rows are inside the spacer, which clips them: drawn rows beyond the last never make
    // the scrolling area longer than the spacer
    this.spacer = document.createElement("div");
    this.spacer.className = "log-spacer";
    this.rows = document.createElement("div");
    this.rows.className = "log-rows";
    this.spacer.append(this.rows);
    scroller.append(this.spacer);
    scroller.addEventListener("scroll", () => this.scrolled(), { passive: true });
    if (typeof ResizeObserver !== "undefined")
      new ResizeObserver(() => {
        const view = scroller.clientHeight;
        if (view === this.view) return;
        this.view = view;
        this.schedule();
      }).observe(scroller);
  }

  /** The scroller's height on screen: read once, then kept up to date by a ResizeObserver
   * (reading it in each frame, after rows were written, would make the browser lay out the page
   * there and then). */
  get viewport(): number {
    if (this.options.viewport) return this.options.viewport();
    if (this.view < 0) this.view = this.scroller.clientHeight;
    return this.view;
  }

  /** Draws at the next frame (many calls, one frame). */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const frame = this.options.frame ?? ((draw) => requestAnimationFrame(draw));
    frame(() => {
      this.scheduled = false;
      this.draw();
    });
  }

  /** Redraws every row on screen (their look changed). */
  refresh(): void {
    this.generation++;
    this.schedule();
  }

  /** Where the rows are: how much scrolling a pixel of rows takes (1 below MAX_HEIGHT). */
  private geometry() {
    const total = this.count * this.rowHeight;
    const height = Math.min(total, this.options.maxHeight ?? MAX_HEIGHT);
    const view = this.viewport;
    const scrollRange = Math.max(0, height - view);
    const virtualRange = Math.max(0, total - view);
    return { total, height, view, ratio: scrollRange > 0 ? virtualRange / scrollRange : 1, virtualRange };
  }

  /** The first row at least partly on screen, and the last. */
  visible(top = this.top): [number, number] {
    const { ratio, view } = this.geometry();
    const virtualTop = top * ratio;
    const first = Math.min(Math.floor(virtualTop / this.rowHeight), Math.max(0, this.count - 1));
    const last = Math.min(this.count - 1, Math.floor((virtualTop + view - 1) / this.rowHeight));
    return [first, last];
  }

  atEnd(top = this.top): boolean {
    return top + this.viewport >= Math.min(this.count * this.rowHeight, this.options.maxHeight ?? MAX_HEIGHT) - 2;
  }

  /** Scrolls so that `row` is on screen: at the top, in the middle, or only as far as needed. */
  scrollToRow(row: number, align: "top" | "center" | "nearest" = "center"): void {
    this.count = this.source.count();
    const { ratio, view, virtualRange, height: spacer } = this.geometry();
    this.setHeight(spacer); // first: the browser keeps scrollTop within it
    const height = this.rowHeight;
    let top = row * height;
    if (align === "center") top -= (view - height) / 2;
    else if (align === "nearest") {
      const current = this.top * ratio;
      if (top >= current && top + height <= current + view) return this.draw(this.top);
      if (top > current) top -= view - height;
    }
    this.draw(this.setTop(Math.max(0, Math.min(top, virtualRange)) / ratio));
  }

  scrollToEnd(): void {
    this.count = this.source.count();
    const { height, view } = this.geometry();
    this.setHeight(height);
    this.draw(this.setTop(Math.max(0, height - view)));
  }

  /** Draws the rows on screen now (`top`: the scroll position, when the caller knows it). */
  draw(top = this.scroller.scrollTop): void {
    const previous = this.count;
    this.count = this.source.count();
    const { height, ratio } = this.geometry();
    this.setHeight(height);
    this.top = top;
    if (this.count !== previous) top = this.keepAnchor(ratio, top);
    const rowHeight = this.rowHeight;
    const virtualTop = top * ratio;
    const [firstVisible, lastVisible] = this.visible(top);
    const overscan = this.options.overscan ?? OVERSCAN;
    const first = Math.max(0, firstVisible - overscan);
    const last = Math.min(this.count - 1, lastVisible + overscan);
    // the first visible row's top, on the spacer: at scale 1 that is simply its row * height
    const offset = top - (virtualTop - firstVisible * rowHeight) - (firstVisible - first) * rowHeight;
    const transform = `translateY(${Math.max(0, offset)}px)`;
    if (this.rows.style.transform !== transform) this.rows.style.transform = transform;

    const next = new Map<string, Drawn>();
    const elements: HTMLElement[] = [];
    const keys: string[] = [];
    for (let row = first; row <= last && this.count > 0; row++) keys.push(this.source.key(row));
    // elements of rows that left the screen are drawn again for the rows that came
    const wanted = new Set(keys);
    for (const [key, drawn] of this.drawn) if (!wanted.has(key)) this.pool.push(drawn.element);
    keys.forEach((key, i) => {
      let drawn = this.drawn.get(key);
      if (!drawn || drawn.generation !== this.generation) {
        const element = this.source.draw(first + i, drawn?.element ?? this.pool.pop() ?? null);
        drawn = { element, generation: this.generation };
      }
      next.set(key, drawn);
      elements.push(drawn.element);
    });
    this.drawn = next;
    this.pool.length = Math.min(this.pool.length, 2 * (last - first + 1));
    const children = this.rows.children;
    if (children.length !== elements.length || elements.some((element, i) => children[i] !== element)) this.rows.replaceChildren(...elements);
    this.first = first;
    this.last = last;
    this.lastTop = top;
    if (this.count && firstVisible <= lastVisible) {
      const key = keys[firstVisible - first];
      this.anchor = { key, row: firstVisible, offset: virtualTop - firstVisible * rowHeight };
    } else this.anchor = null;
    this.options.onDrawn?.(first, last);
  }

  private setHeight(height: number): void {
    const value = `${height}px`;
    if (this.spacer.style.height !== value) this.spacer.style.height = value;
  }

  /** The rows changed: the first row on screen stays where it was on screen. The scroll
   * position then. */
  private keepAnchor(ratio: number, top: number): number {
    const anchor = this.anchor;
    if (!anchor || top <= 0 || !this.source.find) return top;
    const row = anchor.row < this.count && this.source.key(anchor.row) === anchor.key ? anchor.row : this.source.find(anchor.key);
    if (row < 0) return top;
    const anchored = (row * this.rowHeight + anchor.offset) / ratio;
    return Math.abs(anchored - top) >= 1 ? this.setTop(anchored) : top;
  }

  /** Scrolls to `top` (kept within the rows, as the browser does); where that is. */
  private setTop(top: number): number {
    const highest = Math.max(0, parseFloat(this.spacer.style.height || "0") - this.viewport);
    const kept = Math.max(0, Math.min(top, highest));
    this.scroller.scrollTop = kept;
    this.expected = kept;
    this.lastTop = kept;
    this.top = kept;
    return kept;
  }

  private scrolled(): void {
    const top = this.scroller.scrollTop;
    const mine = this.expected >= 0 && Math.abs(top - this.expected) < 1;
    this.expected = -1;
    const up = top < this.lastTop;
    this.lastTop = top;
    this.top = top;
    if (!mine) this.options.onUserScroll?.(this.atEnd(top), up);
    this.draw(top);
  }
}
