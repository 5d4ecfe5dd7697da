// Drafts, commit and conflicts on the raft item page. The text is kept as the user's draft a
// moment after typing stops; a draft from an earlier visit is offered back (Restore / Discard).
// Save commits through the API from the version the page was loaded with (or the one the last
// commit made): a 409 opens the conflict panel, never a silent overwrite; a script that does not
// parse has its errors marked in the editor. "Changes since the newest version" shows the text
// on screen against it. Without JavaScript none of this runs and Save posts the form.

import { StateEffect } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import {
  CommitRefused,
  Conflict,
  type ConflictBody,
  type Draft,
  DraftsClient,
  type ItemUrls,
} from "../api/drafts";
import { type Api, ApiError } from "../api/http";
import { minimalChange } from "../text/editor";
import { markDiagnostics, wherePhrase } from "../text/problems";
import { Autosaver } from "./autosave";
import { conflictView } from "./conflict";
import { diffView } from "./diff";
import { draftNotice } from "./notice";
import { clock, h, toDom } from "./view";
import "./drafts.css";
import { statusLine, type Tone } from "../ui/status";

/** The mode switch of an OtterScript item, when there is one (blocks or text). */
export interface ModeSwitch {
  readonly mode: string;
  show(mode: "text" | "visual"): Promise<boolean>;
  text(): Promise<string>;
}

export interface DraftsOptions {
  /** The page's API client. */
  client: Api;
  urls: ItemUrls;
  /** The version the page shows (the edit's base). */
  baseVersion: number;
  view: EditorView;
  /** The form's field under the editor. */
  textarea: HTMLTextAreaElement;
  /** The element around the editor (and the blocks): a draft notice goes before it. */
  field: HTMLElement;
  modes?: () => ModeSwitch | undefined;
  /** The server said the user has a draft of the item (else it is not asked for). */
  hasDraft: boolean;
  /** Milliseconds after the last change before the draft is kept. */
  delay?: number;
  /** Brings the page's version line and versions list up to date after a commit. */
  refresh?: () => Promise<void>;
}

export interface Drafts {
  readonly baseVersion: number;
  readonly autosaver: Autosaver;
  /** Commits the text on screen with the message field's text. */
  commit(): Promise<void>;
  /** The item was saved as `version` with `content` by something else on the page (Run): later
   * commits start from that version, and the draft from it. */
  saved(version: number, content: string): void;
}

/** The drafts and commit of the item page; `actions` is the form's Save row. */
export function mountDrafts(actions: HTMLElement, options: DraftsOptions): Drafts {
  const { view, textarea } = options;
  const form = textarea.form;
  const client = new DraftsClient(options.client, options.urls);
  const message = form?.querySelector<HTMLInputElement | HTMLTextAreaElement>("[name=message]") ?? null;
  let base = options.baseVersion;
  let committing = false;

  // the quiet line (not read out at every save) and the short polite status
  const quiet = document.createElement("span");
  quiet.className = "otter-draft-saved";
  const { element: status, say } = statusLine("otter-commit-status");
  const note = (text: string, tone: Tone = "") => {
    quiet.textContent = text;
    quiet.dataset.tone = tone;
  };

  const panels = document.createElement("div");
  panels.className = "otter-drafts-panels";
  actions.insertAdjacentElement("beforebegin", panels);
  const diffPanel = document.createElement("section");
  diffPanel.className = "otter-changes";
  diffPanel.id = "otter-changes";
  diffPanel.hidden = true;
  diffPanel.setAttribute("aria-labelledby", "otter-changes-title");
  let conflictPanel: HTMLElement | null = null;
  panels.append(diffPanel);

  const changesButton = document.createElement("button");
  changesButton.type = "button";
  changesButton.textContent = "Changes since the newest version";
  changesButton.setAttribute("aria-expanded", "false");
  changesButton.setAttribute("aria-controls", diffPanel.id);
  actions.append(changesButton, status, quiet);

  const modes = () => options.modes?.();
  const onScreen = () => view.state.doc.toString();
  /** The script's text from whichever mode shows. */
  const current = (): Promise<string> => modes()?.text() ?? Promise.resolve(onScreen());
  /** Puts `text` in the editor (an undoable change) and in the blocks when they show. */
  const replaceText = async (text: string) => {
    const switcher = modes();
    const visual = switcher?.mode === "visual";
    if (visual && !(await switcher.show("text"))) throw new Error("the blocks could not be turned into text");
    const before = onScreen();
    if (before !== text) view.dispatch({ changes: minimalChange(before, text), userEvent: "input.drafts", scrollIntoView: true });
    if (visual) await switcher.show("visual");
  };

  const autosaver = new Autosaver(
    {
      read: current,
      save: async (content) => {
        await client.keep(content, base);
      },
      saved: (_content, at) => note(`Draft saved ${clock(at)}`),
      failed: (error) => {
        if (error instanceof ApiError && error.status === 400) {
          const text = `Draft not kept: ${error.message}`;
          note(text, "bad");
          say(text, "bad");
        } else note("Draft not kept: the server did not answer. Trying again.", "warn");
      },
      delay: options.delay,
    },
    onScreen(),
  );

  // every change of the text, and the blocks' (they change through the mouse and keys)
  view.dispatch({
    effects: StateEffect.appendConfig.of(
      EditorView.updateListener.of((update) => {
        if (update.docChanged) autosaver.changed();
      }),
    ),
  });
  for (const type of ["pointerup", "keyup", "change", "drop"])
    options.field.addEventListener(type, () => {
      if (modes()?.mode === "visual") autosaver.changed();
    });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") void autosaver.flush();
  });

  // a draft from an earlier visit
  const initial = onScreen();
  let notice: HTMLElement | null = null;
  const closeNotice = () => {
    notice?.remove();
    notice = null;
    autosaver.resume();
  };
  const offer = (draft: Draft) => {
    // the earlier draft stays as it is until the user chooses
    autosaver.pause();
    note("Your edits are not kept as a draft until you restore or discard the earlier one.", "warn");
    notice = toDom(
      draftNotice(draft, {
        restore: () => {
          replaceText(draft.content).then(
            () => {
              base = draft.base_version;
              autosaver.reset(draft.content);
              closeNotice();
              note("");
              say(
                draft.moved_on
                  ? `Draft restored. Version ${draft.latest_version} was saved since it started: Save shows both versions' changes first.`
                  : "Draft restored.",
                draft.moved_on ? "warn" : "ok",
              );
              view.focus();
            },
            (error: unknown) => say(`Not restored: ${describe(error)}`, "bad"),
          );
        },
        discard: () => {
          client.forget().then(
            () => {
              closeNotice();
              note("");
              say("Draft discarded.");
              view.focus();
            },
            (error: unknown) => say(`Not discarded: ${describe(error)}`, "bad"),
          );
        },
      }),
    );
    options.field.insertAdjacentElement("beforebegin", notice);
  };
  if (options.hasDraft)
    client.draft().then(
      (draft) => {
        if (draft && draft.content !== initial) offer(draft);
      },
      () => note("Could not look for a draft: the server did not answer.", "warn"),
    );

  // Changes since the newest version
  const hideChanges = () => {
    diffPanel.hidden = true;
    diffPanel.replaceChildren();
    changesButton.setAttribute("aria-expanded", "false");
  };
  changesButton.addEventListener("click", async () => {
    if (changesButton.getAttribute("aria-expanded") === "true") return hideChanges();
    say("Comparing…");
    try {
      const answer = await client.toText(await current());
      const version = answer.from ?? base;
      diffPanel.replaceChildren(
        toDom(h("h2", { id: "otter-changes-title", tabindex: -1 }, `Changes since version ${version}`)),
        toDom(diffView(answer.diff, `Changes from version ${version} to the text on screen`, `No changes since version ${version}.`)),
      );
      diffPanel.hidden = false;
      changesButton.setAttribute("aria-expanded", "true");
      say("");
    } catch (error) {
      say(`Could not compare: ${describe(error)}`, "bad");
    }
  });

  // commit
  const closeConflict = () => {
    conflictPanel?.remove();
    conflictPanel = null;
  };
  const showConflict = (body: ConflictBody) => {
    closeConflict();
    conflictPanel = toDom(
      conflictView(body, {
        loadTheirs: () => {
          replaceText(body.latest.content).then(
            () => {
              base = body.latest.number;
              autosaver.reset(body.latest.content);
              closeConflict();
              client.forget().catch(() => {});
              say(`Loaded version ${body.latest.number}. Undo (Ctrl+Z) in the editor brings your text back.`, "ok");
              view.focus();
            },
            (error: unknown) => say(`Not loaded: ${describe(error)}`, "bad"),
          );
        },
        saveMine: () => {
          closeConflict();
          void commitAs(body.latest.number);
        },
      }),
    );
    panels.append(conflictPanel);
    conflictPanel.querySelector<HTMLElement>("h2")?.focus();
  };

  const markProblems = (refused: CommitRefused) => {
    const first = markDiagnostics(view, refused.diagnostics);
    say(`Not saved: ${first ? wherePhrase(first) : refused.detail}`, "bad");
  };

  async function commitAs(from: number): Promise<void> {
    if (committing) return;
    committing = true;
    autosaver.pause();
    say("Saving…");
    try {
      await autosaver.idle(); // a draft being kept must not land after the commit forgets it
      const content = await current();
      const saved = await client.commit(content, message?.value ?? "", from);
      const version = saved.version ?? from;
      base = version;
      const stored = typeof saved.content === "string" ? saved.content : content;
      if (stored !== content && onScreen() === content) await replaceText(stored);
      autosaver.reset(stored);
      closeConflict();
      hideChanges();
      if (notice) closeNotice(); // the commit forgot the draft it offered
      if (message) message.value = "";
      note("");
      // the version line and the versions list first: "Saved" means the page shows it
      if (version !== from) await options.refresh?.().catch(() => {});
      say(version === from ? `No changes to save: version ${version} is the newest.` : `Saved as version ${version}.`, "ok");
    } catch (error) {
      if (error instanceof Conflict) {
        say(`Not saved: ${error.body.latest.author || "someone"} saved version ${error.body.latest.number} meanwhile.`, "bad");
        showConflict(error.body);
      } else if (error instanceof CommitRefused) markProblems(error);
      else say(`Not saved: ${describe(error)}`, "bad");
    } finally {
      committing = false;
      autosaver.resume();
    }
  }

  // with JavaScript, Save commits through the API (Run starts its run through the page's
  // address, having prevented the post, or posts the form)
  form?.addEventListener("submit", (event) => {
    if (event.defaultPrevented) return; // handled on the page: the page is not left
    const submitter = (event as SubmitEvent).submitter;
    if (!(submitter instanceof HTMLButtonElement) || submitter.name !== "save" || !actions.contains(submitter)) {
      autosaver.pause(); // the page is left
      return;
    }
    event.preventDefault();
    void commitAs(base);
  });

  return {
    get baseVersion() {
      return base;
    },
    autosaver,
    commit: () => commitAs(base),
    saved(version, content) {
      base = version;
      if (onScreen() === content) autosaver.reset(content);
      if (message) message.value = "";
    },
  };
}

/** What went wrong, for a sentence after "Not saved: ". */
function describe(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = Object.values(error.body.errors ?? {}).flat();
    return fields.length ? fields.join(" ") : error.message;
  }
  if (error instanceof TypeError) return "the server did not answer.";
  return error instanceof Error ? error.message : String(error);
}
