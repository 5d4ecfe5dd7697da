// An API client for the tests: every request recorded, each answered by `answer` (what it
// returns, or throws).

import type { Api } from "../api/http";

export interface Call {
  method: string;
  url: string;
  body?: unknown;
}

export type FakeApi = Api & { calls: Call[] };

export function fakeApi(answer: (call: Call) => unknown = () => ({})): FakeApi {
  const calls: Call[] = [];
  const send = async <T>(call: Call): Promise<T> => {
    calls.push(call);
    return (await answer(call)) as T;
  };
  return {
    calls,
    get: (url) => send({ method: "GET", url }),
    post: (url, body) => send({ method: "POST", url, body }),
    put: (url, body) => send({ method: "PUT", url, body }),
    delete: (url) => send({ method: "DELETE", url }),
    postForm: (url, body) => send({ method: "POST", url, body }),
    html: (url) => send({ method: "GET", url }),
  };
}
