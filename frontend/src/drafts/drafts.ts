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
  type ConflictBody,
  type Draft,
  DraftsClient,
  type ItemUrls,
} from "../api/drafts";
import { type Api, ApiError } from "../api/http";
import { Committer } from "./commit";
import { describeFailure } from "./describe";
import { minimalChange } from "../text/change";
import { markDiagnostics, wherePhrase } from "../text/problems";
import { Autosaver } from "./autosave";
import { conflictView } from "./conflict";
import { ChangesPanel } from "./changes";
import { draftNotice } from "./notice";
import { clock, toDom } from "./view";
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
  const changes = new ChangesPanel(document, {
    compare: async () => client.toText(await current()),
    base: () => committer.base,
    say,
  });
  panels.append(changes.panel);
  let conflictPanel: HTMLElement | null = null;
  actions.append(changes.button, status, quiet);

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
        await client.keep(content, committer.base);
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
              committer.base = draft.base_version;
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
            (error: unknown) => say(`Not restored: ${describeFailure(error)}`, "bad"),
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
            (error: unknown) => say(`Not discarded: ${describeFailure(error)}`, "bad"),
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
              committer.base = body.latest.number;
              autosaver.reset(body.latest.content);
              closeConflict();
              client.forget().catch(() => {});
              say(`Loaded version ${body.latest.number}. Undo (Ctrl+Z) in the editor brings your text back.`, "ok");
              view.focus();
            },
            (error: unknown) => say(`Not loaded: ${describeFailure(error)}`, "bad"),
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

  const committer = new Committer(
    {
      commit: (content, text, from) => client.commit(content, text, from),
      drafts: autosaver,
      current,
      onScreen,
      replaceText,
      message,
      say,
      closePanels: () => {
        closeConflict();
        changes.hide();
        if (notice) closeNotice(); // the commit forgot the draft it offered
        note("");
      },
      conflict: showConflict,
      problems: markProblems,
      refresh: options.refresh,
    },
    options.baseVersion,
  );
  const commitAs = (from: number) => committer.commit(from);

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
    void committer.commit();
  });

  return {
    get baseVersion() {
      return committer.base;
    },
    autosaver,
    commit: () => committer.commit(),
    saved(version, content) {
      committer.base = version;
      if (onScreen() === content) autosaver.reset(content);
      if (message) message.value = "";
    },
  };
}
