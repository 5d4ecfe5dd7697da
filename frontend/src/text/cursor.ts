// The cursor blinks by a timer that hides and shows its layer, not by CodeMirror's CSS animation
// (turned off in extensions.ts: `cursorBlinkRate: 0`). That animation starts again at every key,
// and a page with an animation running paints a key only at the animation's next frame: typing
// waited for it. Keydown → painted, p95, typing in 10,000 lines (bench/editor.py's typing): 23.6
// ms with it, 16.2 with no blink, 20.7 with a CSS animation of one's own that never restarts,
// 13.3–15.9 with this timer. A key shows the cursor at once and starts the blink again, so it
// never blinks out while the user types.

import { type EditorView, type PluginValue, ViewPlugin, type ViewUpdate } from "@codemirror/view";

export const BLINK_MS = 600;
const HIDDEN = "otter-cursor-off";

class CursorBlink implements PluginValue {
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly view: EditorView) {
    this.restart();
  }

  update(update: ViewUpdate): void {
    if (update.selectionSet || update.docChanged || update.focusChanged) this.restart();
  }

  destroy(): void {
    clearInterval(this.timer);
  }

  private layer(): Element | null {
    return this.view.dom.querySelector(".cm-cursorLayer");
  }

  private restart(): void {
    clearInterval(this.timer);
    const layer = this.layer();
    if (layer?.classList.contains(HIDDEN)) layer.classList.remove(HIDDEN);
    this.timer = setInterval(() => {
      if (this.view.hasFocus) this.layer()?.classList.toggle(HIDDEN);
    }, BLINK_MS);
  }
}

/** The cursor blinking by a timer (see above). */
export const cursorBlink = ViewPlugin.fromClass(CursorBlink);
