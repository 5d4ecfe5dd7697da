// Drafts, commit and conflicts on the raft item page, put together from their parts: the text
// kept as the user's draft a moment after typing stops (keep.ts), a draft from an earlier visit
// offered back (draft-offer.ts), Save committing through the API from the version the page was
// loaded with or the last commit made (commit.ts, save.ts), a 409 opening the conflict panel,
// never a silent overwrite (conflict-panel.ts), a script that does not parse marked in the
// editor, and "Changes since the newest version" (changes.ts). Without JavaScript none of this
// runs and Save posts the form.

import type { EditorView } from "@codemirror/view";
import { DraftsClient, type ItemUrls } from "../api/drafts";
import type { Api } from "../api/http";
import { markDiagnostics, wherePhrase } from "../text/problems";
import type { Autosaver } from "./autosave";
import { ChangesPanel } from "./changes";
import { Committer } from "./commit";
import { ConflictPanel } from "./conflict-panel";
import { DraftOffer } from "./draft-offer";
import "./drafts.css";
import { keepDrafts } from "./keep";
import { LocalBlocksStore, offerLocalBlocks } from "./local";
import { saveOnSubmit } from "./save";
import { saveRowStatus } from "./status";
import { ItemText, type ModeSwitch } from "./text";

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
  const { view, field } = options;
  const form = options.textarea.form;
  const drafts = new DraftsClient(options.client, options.urls);
  const message = form?.querySelector<HTMLInputElement | HTMLTextAreaElement>("[name=message]") ?? null;
  const text = new ItemText(view, options.modes);
  const { quiet, status, note, say } = saveRowStatus();
  const focus = () => view.focus();
  const rebase = (version: number) => void (committer.base = version);

  const panels = document.createElement("div");
  panels.className = "otter-drafts-panels";
  actions.insertAdjacentElement("beforebegin", panels);
  const changes = new ChangesPanel(document, { compare: async () => drafts.toText(await text.current()), base: () => committer.base, say });
  panels.append(changes.panel);
  actions.append(changes.button, status, quiet);

  const local = LocalBlocksStore.forPage(location.pathname);
  const autosaver = keepDrafts({ text, view, field, keep: (content) => drafts.keep(content, committer.base), note, say, delay: options.delay, local });
  const left = local.read();
  if (left) offerLocalBlocks(left, { store: local, text, field, say, focus });
  const offer = new DraftOffer({ drafts, autosaver, text, rebase, note, say, focus, field });
  if (options.hasDraft) void offer.lookFor(text.onScreen());
  const conflict = new ConflictPanel({ panels, drafts, autosaver, text, rebase, saveFrom: (from) => void committer.commit(from), say, focus });

  const committer: Committer = new Committer(
    {
      commit: (content, message, from) => drafts.commit(content, message, from),
      drafts: autosaver,
      current: () => text.current(),
      onScreen: () => text.onScreen(),
      nameBlock: text.nameBlock,
      replaceText: (content) => text.replace(content),
      message,
      say,
      closePanels: () => {
        conflict.close();
        changes.hide();
        if (offer.notice) offer.close(); // the commit forgot the draft it offered
        note("");
      },
      conflict: (body) => conflict.show(body),
      problems: (refused) => {
        const first = markDiagnostics(view, refused.diagnostics);
        say(`Not saved: ${first ? wherePhrase(first) : refused.detail}`, "bad");
      },
      refresh: options.refresh,
    },
    options.baseVersion,
  );
  if (form) saveOnSubmit(form, actions, () => void committer.commit(), () => autosaver.pause());

  return {
    get baseVersion() {
      return committer.base;
    },
    autosaver,
    commit: () => committer.commit(),
    saved(version, content) {
      committer.base = version;
      if (text.onScreen() === content) autosaver.reset(content);
      if (message) message.value = "";
    },
  };
}
