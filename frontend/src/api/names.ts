// The names a script in a raft can use (GET /api/scripts/names/?raft=<name>), for completion:
// the inventory's variables (never their values) and the raft items a script calls as modules or
// applies as templates, named as a script in that raft writes them (`raft::name` for another's).

import { type Api, LoadedOnce } from "./http";
import type { Sigil } from "./reference";

export interface InventoryVariable {
  name: string;
  /** the sigil its value's kind takes */
  sigil: Sigil;
  /** the kinds of scope that set it: server, environment, role, global */
  scopes: string[];
}

export interface RaftItemName {
  name: string;
  raft: string;
  kind: string;
}

export interface ScriptNames {
  variables: InventoryVariable[];
  modules: RaftItemName[];
  templates: RaftItemName[];
}

/** The names for scripts in `raft`, loaded once; a failed load is tried again on the next call. */
export class NamesClient extends LoadedOnce<ScriptNames> {
  constructor(client: Api, url: string, raft: string) {
    super(client, `${url}?${new URLSearchParams({ raft })}`, (data) => data as ScriptNames);
  }
}
