// The executions list (executions/list.html): its rows asked for again while executions run
// (executions/list.ts).

import { api, csrfToken } from "../api/http";
import { mountExecutionList } from "../executions/list";
import { mountMenu } from "../site/menu";

mountMenu();
mountExecutionList(api(csrfToken()));
