// @vitest-environment jsdom
import { describe, expect, test, vi } from "vitest";
import { api, ApiError, csrfToken, type Fetch } from "./http";

function answering(status: number, body: string, type = "application/json") {
  return vi.fn<Fetch>(async () => new Response(body, { status, headers: { "Content-Type": type } }));
}

describe("api", () => {
  test("test_api_gets_json_with_the_session_and_the_csrf_token", async () => {
    const fetcher = answering(200, '{"a": 1}');
    const signal = new AbortController().signal;
    expect(await api("tok", fetcher).get("/x/", { signal })).toEqual({ a: 1 });
    const [url, init] = fetcher.mock.calls[0];
    expect(url).toBe("/x/");
    expect(init).toMatchObject({ method: "GET", credentials: "same-origin", signal });
    expect(init?.headers).toEqual({ Accept: "application/json", "X-CSRFToken": "tok" });
  });

  test("test_api_posts_a_form_as_it_is_leaving_its_type_to_the_browser", async () => {
    const fetcher = answering(201, '{"ok": true}');
    const data = new FormData();
    data.append("run", "");
    expect(await api("tok", fetcher).postForm("/run/", data)).toEqual({ ok: true });
    const init = fetcher.mock.calls[0][1];
    expect(init?.body).toBe(data);
    expect(init?.headers).toEqual({ Accept: "application/json", "X-CSRFToken": "tok" });
  });

  test("test_api_refusals_carry_the_error_body", async () => {
    const refused = await api("", answering(403, '{"detail": "Log in first."}')).get("/x/").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403, message: "Log in first." });
  });

  test("test_api_an_answer_that_is_not_json_is_an_error_even_when_it_is_ok", async () => {
    // the login page a lapsed session is redirected to answers 200 with HTML: it is no data
    const login = await api("", answering(200, "<form>Log in</form>", "text/html")).get("/x/").catch((error: unknown) => error);
    expect(login).toBeInstanceOf(ApiError);
    expect((login as ApiError).message).toBe("the server answered 200 with something other than JSON");
    expect(await api("", vi.fn<Fetch>(async () => new Response(null, { status: 204 }))).delete("/x/")).toEqual({});
  });

  test("test_api_html_asks_for_the_page_as_html", async () => {
    const fetcher = answering(200, "<p>fresh</p>", "text/html");
    expect(await api("tok", fetcher).html("/rafts/ops/deploy/")).toBe("<p>fresh</p>");
    expect(fetcher.mock.calls[0][1]?.headers).toMatchObject({ Accept: "text/html" });
    await expect(api("", answering(500, "oops", "text/html")).html("/x/")).rejects.toMatchObject({ status: 500 });
  });
});

describe("csrfToken", () => {
  test("test_csrf_token_comes_from_the_form_else_from_the_cookie", () => {
    document.body.innerHTML = '<form><input type="hidden" name="csrfmiddlewaretoken" value="from-form"></form>';
    expect(csrfToken(document)).toBe("from-form");
    document.body.innerHTML = "";
    expect(csrfToken(document)).toBe("");
    document.cookie = "csrftoken=from-cookie";
    expect(csrfToken(document)).toBe("from-cookie");
  });
});
