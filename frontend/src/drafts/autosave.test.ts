import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { Autosaver } from "./autosave";

function setup(kept = "saved", delay = 2000) {
  let text = kept;
  const saves: string[] = [];
  const save = vi.fn(async (content: string) => {
    saves.push(content);
  });
  const saved = vi.fn();
  const failed = vi.fn();
  const saver = new Autosaver({ read: () => text, save, saved, failed, delay, retry: 10000 }, kept);
  return {
    saver,
    save,
    saved,
    failed,
    saves,
    type(next: string) {
      text = next;
      saver.changed();
    },
  };
}

describe("Autosaver", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test("test_autosave_keeps_the_text_once_typing_has_stopped", async () => {
    const { type, saves, saved } = setup();
    type("s");
    await vi.advanceTimersByTimeAsync(1500);
    type("sa");
    await vi.advanceTimersByTimeAsync(1500);
    type("sav");
    await vi.advanceTimersByTimeAsync(1999);
    expect(saves).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(saves).toEqual(["sav"]);
    expect(saved).toHaveBeenCalledWith("sav", expect.any(Date));
  });

  test("test_autosave_never_keeps_the_text_the_server_has", async () => {
    const { saver, type, save } = setup("saved");
    type("saved");
    await vi.advanceTimersByTimeAsync(5000);
    expect(save).not.toHaveBeenCalled();
    type("changed");
    await vi.advanceTimersByTimeAsync(2000);
    type("changed");
    await vi.advanceTimersByTimeAsync(2000);
    expect(save).toHaveBeenCalledTimes(1);
    saver.reset("committed");
    type("committed");
    await vi.advanceTimersByTimeAsync(2000);
    expect(save).toHaveBeenCalledTimes(1);
  });

  test("test_autosave_saves_nothing_while_paused_and_catches_up_on_resume", async () => {
    const { saver, type, saves } = setup();
    type("one");
    saver.pause();
    await vi.advanceTimersByTimeAsync(10000);
    type("two");
    await vi.advanceTimersByTimeAsync(10000);
    expect(saves).toEqual([]);
    saver.pause();
    saver.resume(); // still paused once
    await vi.advanceTimersByTimeAsync(10000);
    expect(saves).toEqual([]);
    saver.resume();
    await vi.advanceTimersByTimeAsync(2000);
    expect(saves).toEqual(["two"]);
  });

  test("test_autosave_makes_one_save_at_a_time_and_then_the_newest_text", async () => {
    let release: () => void = () => {};
    const saves: string[] = [];
    let text = "a";
    const saver = new Autosaver(
      {
        read: () => text,
        save: (content) =>
          new Promise<void>((resolve) => {
            saves.push(content);
            release = resolve;
          }),
        delay: 100,
      },
      "",
    );
    saver.changed();
    await vi.advanceTimersByTimeAsync(100);
    expect(saves).toEqual(["a"]);
    text = "ab";
    saver.changed();
    await vi.advanceTimersByTimeAsync(100);
    expect(saves).toEqual(["a"]); // the first is still under way
    const idle = saver.idle();
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(saves).toEqual(["a", "ab"]);
    release();
    await idle;
    expect(saver.baseline).toBe("ab");
    expect(saver.pending).toBe(false);
  });

  test("test_autosave_tries_a_failed_save_again_later", async () => {
    const { saver, type, save, failed } = setup();
    save.mockRejectedValueOnce(new Error("down"));
    type("edited");
    await vi.advanceTimersByTimeAsync(2000);
    expect(failed).toHaveBeenCalledTimes(1);
    expect(saver.baseline).toBe("saved");
    await vi.advanceTimersByTimeAsync(9999);
    expect(save).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(save).toHaveBeenCalledTimes(2);
    expect(saver.baseline).toBe("edited");
  });

  test("test_autosave_flush_saves_a_pending_change_now", async () => {
    const { saver, type, saves } = setup();
    type("now");
    await saver.flush();
    expect(saves).toEqual(["now"]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(saves).toEqual(["now"]);
  });
});
