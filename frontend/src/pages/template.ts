// A job template's launch page and its form (executions/template_launch.html,
// template_form.html): where the run goes, said while its targets are chosen (targets/preview.ts).
// The templates load this entry only for users who may see servers.

import { api, csrfToken } from "../api/http";
import { mountMenu } from "../site/menu";
import { mountTargetPreviews } from "../targets/preview";

mountMenu();
mountTargetPreviews(api(csrfToken()));
