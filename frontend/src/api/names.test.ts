import { expect, test, vi } from "vitest";
import { api, type Fetch } from "./http";
import { NamesClient } from "./names";

test("test_names_client_asks_for_the_rafts_names_once", async () => {
  const body = { variables: [{ name: "Port", sigil: "$", scopes: ["global"] }], modules: [], templates: [] };
  const fetcher = vi.fn<Fetch>(async () => new Response(JSON.stringify(body), { status: 200 }));
  const client = new NamesClient(api("t", fetcher), "/api/scripts/names/", "web ops");
  const [first, second] = await Promise.all([client.load(), client.load()]);
  expect(first).toBe(second);
  expect(client.current?.variables[0].name).toBe("Port");
  expect(fetcher).toHaveBeenCalledTimes(1);
  expect(fetcher.mock.calls[0][0]).toBe("/api/scripts/names/?raft=web+ops");
});
