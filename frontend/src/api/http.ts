// JSON over fetch for the API, with Django's CSRF token (session authentication) and the API's
// one error body: {"detail", "code", "errors"?, "diagnostics"?}.

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

export interface Api {
  get<T>(url: string): Promise<T>;
  post<T>(url: string, body: unknown): Promise<T>;
  put<T>(url: string, body: unknown): Promise<T>;
  delete<T = unknown>(url: string): Promise<T>;
}

/** An API client; `csrfToken` is what Django put in the page's form. */
export function api(csrfToken: string, fetcher: Fetch = (...args) => fetch(...args)): Api {
  async function send<T>(url: string, init: RequestInit): Promise<T> {
    const response = await fetcher(url, {
      credentials: "same-origin",
      ...init,
      headers: {
        Accept: "application/json",
        ...(init.body !== undefined ? { "Content-Type": "application/json" } : {}),
        "X-CSRFToken": csrfToken,
        ...init.headers,
      },
    });
    const text = await response.text();
    let body: unknown = {};
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = { detail: `the server answered ${response.status} with something other than JSON` };
      }
    }
    if (!response.ok) throw new ApiError(response.status, body as ErrorBody);
    return body as T;
  }
  return {
    get: (url) => send(url, { method: "GET" }),
    post: (url, body) => send(url, { method: "POST", body: JSON.stringify(body) }),
    put: (url, body) => send(url, { method: "PUT", body: JSON.stringify(body) }),
    delete: (url) => send(url, { method: "DELETE" }),
  };
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
