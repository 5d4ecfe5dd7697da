// The dashboard (home.html): the running and recently ended executions and the failed count,
// asked for again every few seconds (dashboard/activity.ts) when the user may see executions.

import { api, csrfToken } from "../api/http";
import { mountActivity } from "../dashboard/activity";
import { mountMenu } from "../site/menu";

mountMenu();
mountActivity(api(csrfToken()));
