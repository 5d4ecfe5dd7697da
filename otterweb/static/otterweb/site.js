// The header's menu button on a narrow screen. Without this script the button stays hidden and
// the navigation is always shown.
(() => {
  const toggle = document.querySelector(".menu-toggle");
  if (!toggle) return;
  const menu = document.getElementById(toggle.getAttribute("aria-controls"));
  const show = (open) => {
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
})();
