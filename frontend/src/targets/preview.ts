// Where a run goes, said while its targets are chosen. For every <form data-target-preview>
// (the attribute's value is the preview URL; an empty one leaves the form alone): when its fields
// named servers, roles or environments change, asks the server (TargetPreviewView) which active
// servers the run would go to and writes its sentence ("Runs on 3 servers: web1, web2, db1", or
// what to choose) into the form's [data-target-preview-output], a status element.

import { type Api, ApiError } from "../api/http";

export const FIELDS = ["servers", "roles", "environments"];
export const WAIT_MS = 150; // a burst of changes (shift-click in a list) asks once

export interface PreviewAnswer {
  summary: string;
  count: number;
}

export type PreviewTone = "" | "warning" | "error";

/** The query of the targets chosen in `data` (disabled fields are not in it). */
export function targetQuery(data: FormData): string {
  const query = new URLSearchParams();
  for (const field of FIELDS) for (const value of data.getAll(field)) if (value) query.append(field, String(value));
  return query.toString();
}

/** The sentence and tone for an answer, or for the error that came instead. */
export function previewSentence(answer: PreviewAnswer | unknown): [string, PreviewTone] {
  if (answer instanceof ApiError)
    return answer.body.detail
      ? [answer.body.detail, "error"]
      : [`Could not tell where the run goes (HTTP ${answer.status}).`, "error"];
  if (answer instanceof Error) return ["Could not tell where the run goes: the server did not answer.", "error"];
  const { summary, count } = answer as PreviewAnswer;
  return [summary, count > 0 ? "" : "warning"];
}

export class TargetPreview {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private asking: AbortController | null = null;
  private lastQuery: string | null = null;

  constructor(
    private readonly form: HTMLFormElement,
    private readonly output: HTMLElement,
    private readonly url: string,
    private readonly client: Api,
    private readonly wait = WAIT_MS,
  ) {
    if (!output.hasAttribute("role")) output.setAttribute("role", "status");
    const changed = (event: Event) => {
      if (!FIELDS.includes((event.target as HTMLInputElement | null)?.name ?? "")) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.preview(), this.wait);
    };
    form.addEventListener("change", changed);
    form.addEventListener("input", changed);
  }

  /** Asks for the targets chosen now, unless they are those last asked for. */
  async preview(): Promise<void> {
    const text = targetQuery(new FormData(this.form));
    if (text === this.lastQuery) return;
    this.lastQuery = text;
    this.asking?.abort();
    const asking = (this.asking = new AbortController());
    try {
      const answer = await this.client.get<PreviewAnswer>(this.url + (text ? `?${text}` : ""), { signal: asking.signal });
      this.show(...previewSentence(answer));
    } catch (error) {
      if (asking.signal.aborted) return; // a newer question replaced it
      if (!(error instanceof ApiError)) this.lastQuery = null; // ask again at the next change
      this.show(...previewSentence(error));
    }
  }

  private show(sentence: string, tone: PreviewTone): void {
    if (this.output.textContent !== sentence) this.output.textContent = sentence;
    this.output.classList.toggle("errors", tone === "error");
    this.output.classList.toggle("muted", tone === "warning");
  }
}

/** The preview of every form of the page that asks for one; each says where it goes at once. */
export function mountTargetPreviews(client: Api, document: Document = globalThis.document): TargetPreview[] {
  const made: TargetPreview[] = [];
  for (const form of document.querySelectorAll<HTMLFormElement>("form[data-target-preview]")) {
    const output = form.querySelector<HTMLElement>("[data-target-preview-output]");
    const url = form.dataset.targetPreview;
    if (!output || !url) continue;
    const preview = new TargetPreview(form, output, url, client);
    void preview.preview();
    made.push(preview);
  }
  return made;
}
