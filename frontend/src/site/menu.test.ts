// @vitest-environment jsdom
import { expect, test } from "vitest";
import { mountMenu } from "./menu";

test("test_menu_button_shows_opens_and_closes_the_navigation_and_escape_gives_the_focus_back", () => {
  document.body.innerHTML = `
    <button type="button" class="menu-toggle" aria-expanded="false" aria-controls="site-menu" hidden>Menu</button>
    <div class="site-menu" id="site-menu"><a href="/">Home</a></div>`;
  const toggle = mountMenu(document)!;
  const menu = document.getElementById("site-menu")!;
  expect(toggle.hidden).toBe(false);
  expect(document.documentElement.classList.contains("has-menu-toggle")).toBe(true);
  toggle.click();
  expect([toggle.getAttribute("aria-expanded"), menu.classList.contains("open")]).toEqual(["true", true]);
  menu.querySelector("a")!.focus();
  document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
  expect([toggle.getAttribute("aria-expanded"), menu.classList.contains("open")]).toEqual(["false", false]);
  expect(document.activeElement).toBe(toggle);
  toggle.click();
  toggle.click();
  expect(menu.classList.contains("open")).toBe(false);
});

test("test_menu_of_a_page_without_the_header_menu_is_nothing", () => {
  document.body.innerHTML = "<main></main>"; // the login page: no menu for visitors
  expect(mountMenu(document)).toBeNull();
});
