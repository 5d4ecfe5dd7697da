// The text editor of a raft item: CodeMirror over the page's textarea, put together from its
// parts: the extensions by language (extensions.ts), the toolbar and its status line
// (toolbar.ts), Format (format.ts) and the textarea kept as the form's field (field.ts), so Save
// and Run post what is on screen and the page works as before without JavaScript.

import { openSearchPanel } from "@codemirror/search";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import type { Api } from "../api/http";
import { NamesClient } from "../api/names";
import { ReferenceClient } from "../api/reference";
import { ScriptsClient } from "../api/scripts";
import { statusLine } from "../ui/status";
import { editorExtensions, type EditorLanguage, languageExtensions, otterscriptExtensions } from "./extensions";
import { contentAttributes, editorPlace, keepAsField } from "./field";
import { formatter } from "./format";
import { lintSummary } from "./lint";
import { textToolbar } from "./toolbar";

export type { EditorLanguage } from "./extensions";

export interface EditorOptions {
  language: EditorLanguage;
  /** The page's API client. */
  client: Api;
  checkUrl: string;
  formatUrl: string;
  referenceUrl: string;
  /** GET /api/scripts/names/ and the item's raft: the names completion offers (none without) */
  namesUrl?: string;
  raft?: string;
}

export interface MountedEditor {
  view: EditorView;
  /** The reference of operations and functions (loaded once for the page). */
  reference: ReferenceClient;
  /** The script endpoints: check and format. */
  scripts: ScriptsClient;
  format(): Promise<void>;
}

/** CodeMirror in place of `textarea`, which stays the form's field. */
export function mountTextEditor(textarea: HTMLTextAreaElement, options: EditorOptions): MountedEditor {
  const { client } = options;
  const scripts = new ScriptsClient(client, { check: options.checkUrl, format: options.formatUrl });
  const reference = new ReferenceClient(client, options.referenceUrl);
  const names = options.namesUrl && options.raft ? new NamesClient(client, options.namesUrl, options.raft) : null;
  const isOtterScript = options.language === "otterscript";
  const readOnly = textarea.readOnly;

  const { element: status, say } = statusLine("otter-editor-status");
  let view: EditorView;
  const format = formatter(() => view, { scripts, say, readOnly });
  const language = languageExtensions(options.language, () =>
    otterscriptExtensions({
      scripts,
      // the reference once it has arrived, asked for again after a failed load
      reference: () => {
        if (!reference.current) reference.load().catch(() => {});
        return reference.current;
      },
      // the raft's names, asked for when completion first offers them (again after a failure)
      names: () => names?.load().catch(() => null) ?? Promise.resolve(null),
      report: (summary) => say(...lintSummary(summary)),
      format: () => void format(),
    }),
  );

  const wrapper = editorPlace(textarea, options.language);
  wrapper.append(textToolbar({ format: isOtterScript && !readOnly ? () => void format() : undefined, find: () => openSearchPanel(view) }, status));
  view = new EditorView({
    parent: wrapper,
    state: EditorState.create({ doc: textarea.value, extensions: editorExtensions(language, readOnly, contentAttributes(textarea)) }),
  });
  keepAsField(textarea, view);
  if (isOtterScript) {
    say("Checking…");
    reference.load().catch(() => say("Could not load the reference of operations and functions.", "warn"));
  }
  return { view, format, reference, scripts };
}
