import { describe, expect, test, vi } from "vitest";
import { ApiError } from "../api/http";
import { Poller, SESSION_ENDED } from "./poll";

/** A document whose visibility the test sets, and timers it runs by hand. */
function world() {
  const listeners: (() => void)[] = [];
  const document = {
    hidden: false,
    addEventListener: (_type: string, listener: () => void) => void listeners.push(listener),
  };
  const timers: { run: () => void; ms: number }[] = [];
  return {
    document,
    timers: {
      set: (run: () => void, ms: number) => timers.push({ run, ms }),
      clear: () => {},
    },
    pending: timers,
    /** Runs the next timer and waits for its round. */
    async tick() {
      timers.shift()!.run();
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
    show() {
      document.hidden = false;
      for (const listener of listeners) listener();
    },
  };
}

describe("Poller", () => {
  test("test_poller_asks_after_each_interval_and_not_at_once", async () => {
    const w = world();
    const tick = vi.fn(async () => {});
    new Poller({ tick, every: () => 5000, stopped: () => {}, document: w.document as unknown as Document, timers: w.timers }).start();
    expect(tick).not.toHaveBeenCalled();
    expect(w.pending.map((t) => t.ms)).toEqual([5000]);
    await w.tick();
    await w.tick();
    expect(tick).toHaveBeenCalledTimes(2);
    expect(w.pending).toHaveLength(1);
  });

  test("test_poller_waits_while_the_tab_is_hidden_and_asks_when_it_shows", async () => {
    const w = world();
    const tick = vi.fn(async () => {});
    new Poller({ tick, every: () => 5000, stopped: () => {}, document: w.document as unknown as Document, timers: w.timers }).start();
    w.document.hidden = true;
    await w.tick();
    expect(tick).not.toHaveBeenCalled();
    expect(w.pending).toHaveLength(0); // nothing asked while hidden
    w.show();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(tick).toHaveBeenCalledTimes(1);
    expect(w.pending).toHaveLength(1);
  });

  test("test_poller_tries_again_after_a_failure_and_stops_when_the_session_ended", async () => {
    const w = world();
    const stopped = vi.fn();
    const tick = vi
      .fn<() => Promise<void>>()
      .mockRejectedValueOnce(new TypeError("Failed to fetch"))
      .mockRejectedValueOnce(new ApiError(403, { detail: "Log in first." }));
    const poller = new Poller({ tick, every: () => 10, stopped, document: w.document as unknown as Document, timers: w.timers }).start();
    await w.tick();
    expect(w.pending).toHaveLength(1); // the network dropped: again at the next tick
    await w.tick();
    expect(stopped).toHaveBeenCalledWith(SESSION_ENDED);
    expect(poller.stopped).toBe(true);
    expect(w.pending).toHaveLength(0);
    w.show();
    expect(tick).toHaveBeenCalledTimes(2);
  });

  test("test_poller_asks_how_long_to_wait_after_each_round", async () => {
    const w = world();
    let running = true;
    new Poller({ tick: async () => void (running = false), every: () => (running ? 2000 : 15000), stopped: () => {}, document: w.document as unknown as Document, timers: w.timers }).start();
    await w.tick();
    expect(w.pending.map((t) => t.ms)).toEqual([15000]);
  });
});
