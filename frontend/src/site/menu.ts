// The header's menu button on a narrow screen (base.html): it opens and closes the navigation,
// and Escape closes it, giving the focus back to the button. Without script the button stays
// hidden and the navigation is always shown.

export function mountMenu(document: Document = globalThis.document): HTMLButtonElement | null {
  const toggle = document.querySelector<HTMLButtonElement>(".menu-toggle");
  const menu = toggle ? document.getElementById(toggle.getAttribute("aria-controls") ?? "") : null;
  if (!toggle || !menu) return null;
  const show = (open: boolean) => {
    toggle.setAttribute("aria-expanded", String(open));
    menu.classList.toggle("open", open);
  };
  document.documentElement.classList.add("has-menu-toggle");
  toggle.hidden = false;
  toggle.addEventListener("click", () => show(toggle.getAttribute("aria-expanded") !== "true"));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.classList.contains("open")) {
      show(false);
      toggle.focus();
    }
  });
  return toggle;
}
