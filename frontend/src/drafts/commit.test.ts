import { describe, expect, test, vi } from "vitest";
import { CommitRefused, Conflict, type ConflictBody } from "../api/drafts";
import { ApiError } from "../api/http";
import { type CommitParts, Committer } from "./commit";

function parts(overrides: Partial<CommitParts> = {}) {
  const said: string[] = [];
  let screen = "Log-Information hi;";
  const made: CommitParts & { said: string[] } = {
    said,
    commit: vi.fn(async (content: string, _message: string, from: number) => ({ id: 1, version: from + 1, content, mode: "text" })),
    drafts: { pause: vi.fn(), resume: vi.fn(), idle: vi.fn(async () => {}), reset: vi.fn() },
    current: async () => screen,
    onScreen: () => screen,
    replaceText: vi.fn(async (text: string) => void (screen = text)),
    message: { value: "say why" },
    say: (text) => void said.push(text),
    closePanels: vi.fn(),
    conflict: vi.fn(),
    problems: vi.fn(),
    refresh: vi.fn(async () => {}),
    ...overrides,
  };
  return made;
}

describe("Committer", () => {
  test("test_commit_saves_from_the_base_and_moves_the_base_on", async () => {
    const page = parts();
    const committer = new Committer(page, 3);
    await committer.commit();
    expect(page.commit).toHaveBeenCalledWith("Log-Information hi;", "say why", 3);
    expect(committer.base).toBe(4);
    expect(page.message!.value).toBe("");
    expect(page.drafts.reset).toHaveBeenCalledWith("Log-Information hi;");
    expect(page.refresh).toHaveBeenCalled();
    expect(page.said.at(-1)).toBe("Saved as version 4.");
    expect(page.drafts.resume).toHaveBeenCalled();
  });

  test("test_commit_of_unchanged_text_says_so_and_shows_what_the_server_stored", async () => {
    const page = parts({ commit: vi.fn(async () => ({ id: 1, version: 3, content: "Log-Information  hi;", mode: "text" })) });
    await new Committer(page, 3).commit();
    expect(page.replaceText).toHaveBeenCalledWith("Log-Information  hi;");
    expect(page.refresh).not.toHaveBeenCalled();
    expect(page.said.at(-1)).toBe("No changes to save: version 3 is the newest.");
  });

  test("test_commit_from_a_stale_base_shows_the_conflict", async () => {
    const body = { code: "conflict", detail: "", base_version: 3, latest: { number: 5, author: "ana", created: "", message: "", content: "x" }, diff: "", diff_to_submitted: "" } as ConflictBody;
    const page = parts({ commit: vi.fn(async () => Promise.reject(new Conflict(body))) });
    const committer = new Committer(page, 3);
    await committer.commit();
    expect(page.conflict).toHaveBeenCalledWith(body);
    expect(page.said.at(-1)).toBe("Not saved: ana saved version 5 meanwhile.");
    expect(committer.base).toBe(3);
  });

  test("test_commit_refusals_mark_the_problems_or_say_why", async () => {
    const refused = new CommitRefused("does not parse", []);
    const page = parts({ commit: vi.fn(async () => Promise.reject(refused)) });
    await new Committer(page, 1).commit();
    expect(page.problems).toHaveBeenCalledWith(refused);
    const silent = parts({ commit: vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))) });
    await new Committer(silent, 1).commit();
    expect(silent.said.at(-1)).toBe("Not saved: the server did not answer.");
    const fields = parts({ commit: vi.fn(async () => Promise.reject(new ApiError(400, { errors: { message: ["Too long."] } }))) });
    await new Committer(fields, 1).commit();
    expect(fields.said.at(-1)).toBe("Not saved: Too long.");
  });

  test("test_commit_a_second_save_while_one_is_under_way_is_ignored", async () => {
    const page = parts();
    const committer = new Committer(page, 1);
    await Promise.all([committer.commit(), committer.commit()]);
    expect(page.commit).toHaveBeenCalledTimes(1);
  });
});
