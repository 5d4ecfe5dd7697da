// The one API client of a page: every request the browser side makes goes through `api()`, made
// once by the page's entry (src/pages/) with Django's CSRF token and handed to the modules that
// need it. JSON over fetch, the session's cookies, and the API's one error body:
// {"detail", "code", "errors"?, "diagnostics"?}. A form is posted as it is (a run), a page asked
// for as HTML (the item page brought up to date after a commit).

export type Fetch = typeof fetch;

export interface ErrorBody {
  detail?: string;
  code?: string;
  errors?: Record<string, string[]>;
  diagnostics?: unknown[];
}

/** An answer of 400 or more, with the API's error body when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.detail || `the server answered ${status}`);
    this.name = "ApiError";
  }
}

export interface RequestOptions {
  /** Aborts the request (an AbortError rejects it). */
  signal?: AbortSignal;
}

export interface Api {
  get<T>(url: string, options?: RequestOptions): Promise<T>;
  post<T>(url: string, body: unknown): Promise<T>;
  put<T>(url: string, body: unknown): Promise<T>;
  delete<T = unknown>(url: string): Promise<T>;
  /** Posts `data` as a form (multipart), asking for JSON. */
  postForm<T>(url: string, data: FormData): Promise<T>;
  /** The HTML of the page at `url`, as the server renders it now. */
  html(url: string): Promise<string>;
}

/** An API client; `csrfToken` is what Django put in the page (see `csrfToken`). */
export function api(csrfToken: string, fetcher: Fetch = (...args) => fetch(...args)): Api {
  async function send(url: string, init: RequestInit, accept = "application/json"): Promise<Response> {
    const json = init.body !== undefined && !(init.body instanceof FormData);
    return fetcher(url, {
      credentials: "same-origin",
      ...init,
      headers: {
        Accept: accept,
        ...(json ? { "Content-Type": "application/json" } : {}),
        "X-CSRFToken": csrfToken,
      },
    });
  }
  async function sendJson<T>(url: string, init: RequestInit): Promise<T> {
    const response = await send(url, init);
    const text = await response.text();
    let body: unknown = {};
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        // an error page, or the login page a lapsed session is sent to: never data
        throw new ApiError(response.status, { detail: `the server answered ${response.status} with something other than JSON` });
      }
    }
    if (!response.ok) throw new ApiError(response.status, body as ErrorBody);
    return body as T;
  }
  return {
    get: (url, options = {}) => sendJson(url, { method: "GET", signal: options.signal }),
    post: (url, body) => sendJson(url, { method: "POST", body: JSON.stringify(body) }),
    put: (url, body) => sendJson(url, { method: "PUT", body: JSON.stringify(body) }),
    delete: (url) => sendJson(url, { method: "DELETE" }),
    postForm: (url, data) => sendJson(url, { method: "POST", body: data }),
    async html(url) {
      const response = await send(url, { method: "GET" }, "text/html");
      if (!response.ok) throw new ApiError(response.status, {});
      return response.text();
    },
  };
}

/** Django's CSRF token on this page: a form's hidden field, else the `csrftoken` cookie (empty
 * when there is neither: GETs need none). */
export function csrfToken(document: Document = globalThis.document): string {
  const field = document.querySelector<HTMLInputElement>("input[name=csrfmiddlewaretoken]");
  if (field?.value) return field.value;
  const cookie = document.cookie.split(";").find((part) => part.trim().startsWith("csrftoken="));
  return cookie ? decodeURIComponent(cookie.trim().slice("csrftoken=".length)) : "";
}

/** What a GET answers, loaded once and kept: `load()` while one is under way waits for it, and
 * after a failure it asks again. */
export class LoadedOnce<T> {
  private loading: Promise<T> | null = null;
  private loaded: T | null = null;

  constructor(
    private readonly client: Api,
    private readonly url: string,
    private readonly build: (data: unknown) => T,
  ) {}

  /** The answer if it has arrived, without waiting. */
  get current(): T | null {
    return this.loaded;
  }

  load(): Promise<T> {
    if (!this.loading) {
      this.loading = this.client.get<unknown>(this.url).then(
        (data) => (this.loaded = this.build(data)),
        (error: unknown) => {
          this.loading = null;
          throw error;
        },
      );
    }
    return this.loading;
  }
}
