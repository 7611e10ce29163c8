/**
 * Ramino in a browser: the lobby, a seat at a table, or a spectator's view,
 * on the TypeScript SDK over gRPC-web (through `ramino gateway`).
 *
 * Routes: `#/` the lobby, `#/play/{game}` a seat (its token kept in
 * localStorage, so a reload or a return keeps the seat), `#/watch/{game}`
 * a spectator, `#invite=CODE` a private table's invite (a friend's link,
 * `&from=NAME&variant=ID` after the code: a name, then a seat). The API
 * is the page's own origin, or `?api=URL`.
 */
import "./style.css";
import { connect } from "@ramino/client/web";
import { Lobby, inviteOf } from "./lobby.ts";
import { Table, type Page } from "./table.ts";
import { LANG_NAMES, LANGS, asLang, browserLang, setLang, t, type Lang } from "./words.ts";

const params = new URLSearchParams(location.search);
const api = params.get("api") ?? location.origin;
// The host's player token, for quick play (`?player=TOKEN`, then kept).
const given = params.get("player");
if (given) localStorage.setItem("ramino:player-token", given);
const playerToken = localStorage.getItem("ramino:player-token") ?? undefined;
const connection = document.getElementById("connection") as HTMLElement;
const langChoice = document.getElementById("lang") as HTMLSelectElement;
const langLabel = document.getElementById("lang-label") as HTMLElement;
const page: Page = {
  api,
  client: connect(api, playerToken ? { playerToken } : {}),
  quick: playerToken !== undefined,
  playerToken,
  app: document.getElementById("app") as HTMLElement,
  setConnection(text: string, down = false): void {
    connection.textContent = text;
    connection.classList.toggle("down", down);
  },
};

// Each language offered in its own words, marked as that language for a screen reader.
for (const code of LANGS) {
  const option = document.createElement("option");
  option.value = code;
  option.lang = code;
  option.textContent = LANG_NAMES[code];
  langChoice.append(option);
}

function chooseLang(choice: Lang): void {
  setLang(choice);
  document.documentElement.lang = choice;
  langChoice.value = choice;
  langLabel.textContent = t("lang.label");
}

chooseLang(asLang(localStorage.getItem("ramino:lang")) ?? browserLang(navigator.languages));

let current: Lobby | Table | undefined;

function route(): void {
  current?.close();
  const [, kind, id] = location.hash.split("/");
  const invite = location.hash.startsWith("#invite=") ? inviteOf(location.hash) : undefined;
  if (invite?.code) {
    const lobby = new Lobby(page);
    current = lobby;
    void lobby.openInvite(invite);
  } else if ((kind === "play" || kind === "watch") && id) {
    const table = new Table(page, id, kind === "watch");
    current = table;
    void table.open();
  } else {
    const lobby = new Lobby(page);
    current = lobby;
    void lobby.open();
  }
  // Focus to the content for a screen reader; no frame is drawn for it (#app:focus).
  page.app.focus({ preventScroll: true });
}

langChoice.addEventListener("change", () => {
  const next = asLang(langChoice.value);
  if (!next) return;
  localStorage.setItem("ramino:lang", next);
  chooseLang(next);
  if (current instanceof Table) current.render();
  else route();
});

page.app.addEventListener("click", (ev) => {
  const target = (ev.target as HTMLElement).closest("button");
  if (target && current instanceof Table && !target.disabled) current.onClick(target);
});

document.addEventListener("keydown", (ev) => {
  if (!(current instanceof Table) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
  current.onKey(ev);
});

window.addEventListener("hashchange", route);
route();
