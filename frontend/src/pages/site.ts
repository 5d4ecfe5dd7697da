// Every page without an entry of its own (base.html loads this one): the header's menu. The
// pages with their own entry set the menu up too.

import { mountMenu } from "../site/menu";

mountMenu();
