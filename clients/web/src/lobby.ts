/**
 * The lobby: a new game (variant described, seats, bots), quick play, a
 * private table's invite, the tables this browser holds a seat of, and the
 * open games.
 */
import {
  BotLevel,
  GameStatus,
  ServiceError,
  TicketState,
  inviteLink,
  type BotLevelInfo,
  type Game,
  type GameView,
  type Variant,
} from "@ramino/client/web";
import { refusalText } from "./refusals.ts";
import { saveSeat, savedSeat, type Page } from "./table.ts";
import { describeVariant, escape, LEVELS, names, seatName, variantName } from "./text.ts";
import { t } from "./words.ts";

/** Where the page keeps a seat's token: `ramino:seat:{game}` (table.ts `saveSeat`). */
const SEAT_KEY = "ramino:seat:";
/** The most tables of this browser that "Your tables" asks the server about. */
const MAX_MINE = 12;
/** How often the host's invite panel looks whether the friend sat down. */
const SEATED_POLL_MS = 2000;
/** How often "Your tables" is asked again while the lobby is shown. */
const MINE_POLL_MS = 15_000;

function gameId(name: string): string {
  return name.replace(/^games\//, "");
}

/**
 * This page's address to put in an invite link: its origin and path, with
 * `?api=` kept and `?player=` (the host's player token: never shared) left out.
 */
function pageAddress(): string {
  const params = new URLSearchParams(location.search);
  const api = params.get("api");
  const search = api === null ? "" : `?${new URLSearchParams({ api }).toString()}`;
  return `${location.origin}${location.pathname}${search}`;
}

/** The games whose seats this browser holds (their tokens in localStorage). */
function heldGames(): string[] {
  const ids: string[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith(SEAT_KEY)) ids.push(key.slice(SEAT_KEY.length));
  }
  return ids.sort();
}

/**
 * The words a host's invite link carries besides its code (`&from=NAME&variant=ID`):
 * a private table is seen by its seats only, so the friend's page learns
 * from the link who invites and to what (the SDK's `inviteCodeOf` reads the
 * code alone from such a link).
 */
export interface InviteWords {
  from: string;
  variant: string;
}

/** The invite code and the words of a link's fragment (`#invite=CODE&from=…&variant=…`). */
export function inviteOf(hash: string): { code: string } & InviteWords {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  return { code: params.get("invite") ?? "", from: params.get("from") ?? "", variant: params.get("variant") ?? "" };
}

/** Unfinished first (a table waiting for this seat's move first of all), then by id. */
function tableOrder(a: { id: string; view: GameView }, b: { id: string; view: GameView }): number {
  const rank = (v: GameView): number =>
    v.status === GameStatus.FINISHED ? 3 : v.status === GameStatus.PLAYING ? (v.turn === v.seat ? 0 : 1) : 2;
  return rank(a.view) - rank(b.view) || a.id.localeCompare(b.id);
}

export class Lobby {
  private timer: number | undefined;
  private mineTimer: number | undefined;
  private seatedTimer: number | undefined;
  private closed = false;

  constructor(private readonly page: Page) {}

  private searching: AbortController | undefined;

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) window.clearInterval(this.timer);
    if (this.mineTimer !== undefined) window.clearInterval(this.mineTimer);
    if (this.seatedTimer !== undefined) window.clearInterval(this.seatedTimer);
    this.searching?.abort();
  }

  async open(): Promise<void> {
    const { app, client } = this.page;
    const name = localStorage.getItem("ramino:name") ?? "";
    app.innerHTML = `
    <section class="panel" aria-labelledby="new-game">
      <h2 id="new-game">${escape(t("lobby.new"))}</h2>
      <form id="create" class="row">
        <label>${escape(t("lobby.name"))} <input name="name" required maxlength="32" value="${escape(name)}" autocomplete="nickname"></label>
        <label>${escape(t("lobby.variant"))} <select name="variant" id="variant" aria-describedby="variant-about"></select></label>
        <label>${escape(t("lobby.seats"))} <select name="seats" id="seat-count"></select></label>
        <span id="others" class="row"></span>
        <button class="primary" type="submit">${escape(t("lobby.create"))}</button>
        <button type="button" id="quick"${this.page.quick ? "" : ` disabled title="${escape(t("lobby.quickHelp"))}"`}>${escape(t("lobby.quick"))}</button>
        <button type="button" id="quick-cancel" hidden>${escape(t("lobby.quickCancel"))}</button>
        <button type="button" id="friend">${escape(t("lobby.friend"))}</button>
      </form>
      <p id="quick-status" class="muted" role="status"></p>
      <div id="invite" hidden>
        <p>${escape(t("lobby.inviteText"))}</p>
        <p class="row invite-row"><label class="invite-link">${escape(t("lobby.inviteLink"))} <input id="invite-link" readonly></label>
        <button type="button" id="invite-copy">${escape(t("lobby.inviteCopy"))}</button>
        <a id="invite-go" href="#/">${escape(t("lobby.inviteGo"))}</a></p>
        <p id="invite-status" class="muted" role="status"></p>
        <p id="invite-seated" role="status"></p>
        <p><button type="button" id="invite-again">${escape(t("lobby.inviteAgain"))}</button></p>
      </div>
      <p id="variant-about" class="muted"></p>
      <p id="lobby-error" class="error" role="alert"></p>
    </section>
    <section class="panel" id="mine" aria-labelledby="my-tables" hidden>
      <h2 id="my-tables">${escape(t("lobby.mine"))}</h2>
      <ul class="my-tables" id="my-tables-list"></ul>
    </section>
    <section class="panel" aria-labelledby="open-games">
      <h2 id="open-games">${escape(t("lobby.games"))}</h2>
      <div class="scroll"><table class="games"><thead><tr><th scope="col" class="game-id">${escape(t("lobby.game"))}</th><th scope="col">${escape(t("lobby.variant"))}</th><th scope="col">${escape(t("lobby.seats"))}</th><th scope="col">${escape(t("lobby.state"))}</th><th scope="col">${escape(t("lobby.actions"))}</th></tr></thead>
      <tbody id="game-list"><tr><td colspan="5" class="muted">${escape(t("lobby.loading"))}</td></tr></tbody></table></div>
    </section>`;
    const form = document.getElementById("create") as HTMLFormElement;
    const variantSelect = document.getElementById("variant") as HTMLSelectElement;
    const countSelect = document.getElementById("seat-count") as HTMLSelectElement;
    const others = document.getElementById("others") as HTMLElement;
    const about = document.getElementById("variant-about") as HTMLElement;
    const error = document.getElementById("lobby-error") as HTMLElement;
    let variants: Variant[] = [];
    try {
      variants = await client.rules.listVariants();
      this.page.setConnection(t("conn.connected"));
    } catch (e) {
      error.textContent = t("lobby.unreachable", { why: refusalText(e) });
      this.page.setConnection(t("conn.offline"), true);
    }
    // Each level's rating on the server's one scale, beside its name (none
    // from a server that does not list its levels: the names alone).
    const levels = new Map<BotLevel, BotLevelInfo>();
    try {
      for (const info of await client.rules.listBotLevels()) levels.set(info.level, info);
    } catch {
      // an older server: the levels without their ratings
    }
    const levelOption = (value: string, level: BotLevel): string => {
      const info = levels.get(level);
      const label = info
        ? t("lobby.rated", { level: t(`lobby.${value}`), rating: info.rating.toFixed(1) })
        : t(`lobby.${value}`);
      const about = info ? ` title="${escape(info.description)}"` : "";
      return `        <option value="${value}"${about}>${escape(label)}</option>`;
    };
    variantSelect.innerHTML = variants
      .map((v) => `<option value="${escape(v.name)}">${escape(variantName(v.name))}</option>`)
      .join("");
    const fillOthers = (): void => {
      const n = Number(countSelect.value || 2);
      others.innerHTML = Array.from({ length: n - 1 }, (_, i) => {
        const seat = i + 1;
        return `<label>${escape(t("lobby.seat", { n: seat + 1 }))} <select name="seat${seat}">
${LEVELS.map(([value, level]) => levelOption(value, level)).join("\n")}
        <option value="person">${escape(t("lobby.person"))}</option></select></label>`;
      }).join("");
    };
    const fillCounts = (): void => {
      const v = variants.find((x) => x.name === variantSelect.value);
      const low = v?.parameters?.minPlayers ?? 2;
      const high = v?.parameters?.maxPlayers ?? 4;
      countSelect.innerHTML = Array.from({ length: high - low + 1 }, (_, i) => low + i)
        .map((n) => `<option value="${n}">${n}</option>`)
        .join("");
      about.textContent = v ? describeVariant(v.name) : "";
      fillOthers();
    };
    variantSelect.addEventListener("change", fillCounts);
    countSelect.addEventListener("change", fillOthers);
    fillCounts();
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.createAndSit(new FormData(form), error);
    });
    document.getElementById("quick")?.addEventListener("click", () => {
      if (form.reportValidity()) void this.quickPlay(new FormData(form), error);
    });
    document.getElementById("friend")?.addEventListener("click", () => {
      if (form.reportValidity()) void this.playWithAFriend(new FormData(form), error);
    });
    void this.refreshMine();
    this.mineTimer = window.setInterval(() => void this.refreshMine(), MINE_POLL_MS);
    await this.refresh();
    if (this.closed) return;
    this.timer = window.setInterval(() => void this.refresh(), 3000);
  }

  private async createAndSit(data: FormData, error: HTMLElement): Promise<void> {
    const { client } = this.page;
    const name = String(data.get("name") ?? "").trim();
    localStorage.setItem("ramino:name", name);
    const count = Number(data.get("seats") ?? 2);
    const seats: (string | BotLevel)[] = [name];
    for (let s = 1; s < count; s++) {
      const kind = String(data.get(`seat${s}`));
      seats.push(LEVELS.find(([value]) => value === kind)?.[1] ?? "");
    }
    try {
      const created = await client.createGame({ variant: String(data.get("variant")), seats });
      const seat = await client.join(created.name, name, { seat: 0 });
      saveSeat(gameId(created.name), { seat: seat.seat, token: seat.token });
      location.hash = `#/play/${gameId(created.name)}`;
    } catch (e) {
      error.textContent = refusalText(e);
    }
  }

  /**
   * Play with a friend: a private table (never listed) of the seats chosen,
   * the second one always a person's (the friend's), this person in the
   * first; its invite link is shown to send (with the host's name and the
   * variant, which the friend's page cannot ask the server before sitting
   * down), the form is shown as the table it made, and the panel tells when
   * the friend sits down.
   */
  private async playWithAFriend(data: FormData, error: HTMLElement): Promise<void> {
    const { client } = this.page;
    const name = String(data.get("name") ?? "").trim();
    localStorage.setItem("ramino:name", name);
    const count = Number(data.get("seats") ?? 2);
    const variant = String(data.get("variant"));
    const seats: (string | BotLevel)[] = [name, ""];
    for (let s = 2; s < count; s++) {
      const kind = String(data.get(`seat${s}`));
      seats.push(LEVELS.find(([value]) => value === kind)?.[1] ?? "");
    }
    error.textContent = "";
    const form = document.getElementById("create") as HTMLFormElement;
    const controls = [...form.elements].filter(
      (e): e is HTMLInputElement | HTMLSelectElement | HTMLButtonElement =>
        e instanceof HTMLInputElement || e instanceof HTMLSelectElement || e instanceof HTMLButtonElement,
    );
    // One table at a time: nothing of the form is sent twice while it is made.
    const before = controls.map((c) => c.disabled);
    for (const c of controls) c.disabled = true;
    try {
      const created = await client.createGame({ variant, seats, private: true });
      const seat = await client.joinInvite(created.inviteCode, name, { seat: 0 });
      const id = gameId(created.name);
      saveSeat(id, { seat: seat.seat, token: seat.token });
      // The form now shows the table made: seat 2 is the friend's, and no
      // control is left to contradict the invite.
      const friendSeat = form.querySelector<HTMLSelectElement>("select[name=seat1]");
      if (friendSeat) {
        friendSeat.insertAdjacentHTML("afterbegin", `<option value="friend">${escape(t("lobby.friendSeat"))}</option>`);
        friendSeat.value = "friend";
      }
      const link = document.getElementById("invite-link") as HTMLInputElement;
      const words = new URLSearchParams({ from: name, variant }).toString();
      link.value = `${inviteLink(pageAddress(), created.inviteCode)}&${words}`;
      (document.getElementById("invite-go") as HTMLAnchorElement).href = `#/play/${id}`;
      const copy = document.getElementById("invite-copy") as HTMLButtonElement;
      const status = document.getElementById("invite-status") as HTMLElement;
      copy.onclick = () => {
        link.select();
        void navigator.clipboard?.writeText(link.value).then(
          () => (status.textContent = t("lobby.inviteCopied")),
          () => undefined,
        );
      };
      (document.getElementById("invite-again") as HTMLButtonElement).onclick = () => {
        this.close();
        this.closed = false;
        void this.open();
      };
      (document.getElementById("invite") as HTMLElement).hidden = false;
      link.focus();
      link.select();
      this.watchSeats(id, seat.token);
      void this.refreshMine();
    } catch (e) {
      controls.forEach((c, i) => (c.disabled = before[i] ?? false));
      error.textContent = refusalText(e);
    }
  }

  /**
   * Tells the host, in the invite panel, who has sat down at her private
   * table, and when its cards are dealt: its view asked with her seat token
   * every {@link SEATED_POLL_MS} until then.
   */
  private watchSeats(id: string, token: string): void {
    const status = document.getElementById("invite-seated") as HTMLElement;
    const go = document.getElementById("invite-go") as HTMLAnchorElement;
    let busy = false;
    const look = async (): Promise<void> => {
      if (busy || this.closed) return;
      busy = true;
      try {
        const view = await this.page.client.view(`games/${id}`, token);
        if (this.closed) return;
        const seated = view.seats.filter((x) => x.seat !== view.seat && x.taken && x.bot === BotLevel.UNSPECIFIED);
        const who = names(seated.map((x) => seatName(view, x.seat)));
        const dealt = view.status !== GameStatus.WAITING;
        const text = [who ? t("lobby.friendSeated", { who }) : "", dealt ? t("lobby.friendDealt") : ""].filter(Boolean).join(" ");
        if (text && status.textContent !== text) status.textContent = text;
        if (dealt) {
          go.classList.add("go");
          window.clearInterval(this.seatedTimer);
          this.seatedTimer = undefined;
          void this.refreshMine();
        }
      } catch {
        // Asked again at the next tick: the lobby's own line says when the server is away.
      } finally {
        busy = false;
      }
    };
    if (this.seatedTimer !== undefined) window.clearInterval(this.seatedTimer);
    this.seatedTimer = window.setInterval(() => void look(), SEATED_POLL_MS);
  }

  /**
   * "Your tables": the games whose seats this browser holds, each asked
   * with its seat token (a private one is seen by its seats only),
   * unfinished first, each with a link back to its seat. A game the server
   * no longer has is forgotten.
   */
  private async refreshMine(): Promise<void> {
    const ids = heldGames().slice(0, MAX_MINE);
    const found = await Promise.all(
      ids.map(async (id) => {
        const token = savedSeat(id)?.token;
        if (!token) return undefined;
        try {
          return { id, view: await this.page.client.view(`games/${id}`, token) };
        } catch (e) {
          if (e instanceof ServiceError && e.reason === "GAME_NOT_FOUND") localStorage.removeItem(`${SEAT_KEY}${id}`);
          return undefined;
        }
      }),
    );
    const panel = document.getElementById("mine");
    const list = document.getElementById("my-tables-list");
    if (this.closed || !panel || !list) return;
    const tables = found.filter((x) => x !== undefined).sort(tableOrder);
    panel.hidden = tables.length === 0;
    list.innerHTML = tables
      .map(({ id, view }) => {
        const others = view.seats
          .filter((x) => x.seat !== view.seat)
          .map((x) => (x.taken || x.bot !== BotLevel.UNSPECIFIED ? seatName(view, x.seat) : t("lobby.freeSeat")));
        const open = view.seats.filter((x) => !x.taken && x.bot === BotLevel.UNSPECIFIED).length;
        const state =
          view.status === GameStatus.FINISHED
            ? t("lobby.mineOver")
            : view.status === GameStatus.WAITING
              ? t("lobby.waiting", { n: open })
              : view.turn === view.seat
                ? t("lobby.mineTurn")
                : t("lobby.playing");
        const what = t("lobby.mineWith", { variant: variantName(view.variant?.name ?? ""), who: names(others) });
        return `<li data-game="${escape(id)}"><a href="#/play/${escape(id)}">${escape(what)}</a> <span class="muted">${escape(state)}</span></li>`;
      })
      .join("");
  }

  /**
   * Quick play: a ticket for this variant and up to the seats chosen, until
   * a table is found; one search at a time (the button waits, Stop looking
   * ends it), told in a player's words.
   */
  private async quickPlay(data: FormData, error: HTMLElement): Promise<void> {
    if (this.searching) return;
    const status = document.getElementById("quick-status") as HTMLElement;
    const cancel = document.getElementById("quick-cancel") as HTMLButtonElement;
    const button = document.getElementById("quick") as HTMLButtonElement;
    const name = String(data.get("name") ?? "").trim();
    localStorage.setItem("ramino:name", name);
    const stop = new AbortController();
    this.searching = stop;
    button.disabled = true;
    cancel.hidden = false;
    cancel.onclick = () => stop.abort();
    cancel.focus();
    status.textContent = t("lobby.looking");
    error.textContent = "";
    try {
      const tickets = this.page.client.quick.submit({
        variant: String(data.get("variant")),
        playerName: name,
        minSeats: 2,
        maxSeats: Number(data.get("seats") ?? 2),
        signal: stop.signal,
      });
      for await (const update of tickets) {
        if (update.state === TicketState.MATCHED) {
          const id = gameId(update.game);
          saveSeat(id, { seat: update.seat, token: update.seatToken });
          location.hash = `#/play/${id}`;
          return;
        }
        if (update.state === TicketState.EXPIRED || update.state === TicketState.CANCELLED) {
          status.textContent = t(update.state === TicketState.EXPIRED ? "lobby.quickExpired" : "lobby.quickCancelled");
          return;
        }
        status.textContent = t(update.state === TicketState.WIDENED ? "lobby.lookingWider" : "lobby.looking");
      }
    } catch (e) {
      if (!stop.signal.aborted) {
        status.textContent = "";
        error.textContent = refusalText(e);
      }
    } finally {
      const focused = document.activeElement === cancel;
      cancel.hidden = true;
      if (!this.closed) {
        if (stop.signal.aborted) status.textContent = t("lobby.quickStopped");
        button.disabled = false;
        if (focused) button.focus();
      }
      this.searching = undefined;
    }
  }

  private async refresh(): Promise<void> {
    const body = document.getElementById("game-list");
    if (!body) return;
    const games: Game[] = [];
    try {
      for await (const g of this.page.client.listGames({ pageSize: 30 })) {
        if (g.status !== GameStatus.FINISHED) games.push(g);
        if (games.length >= 30) break;
      }
    } catch (e) {
      this.page.setConnection(`${t("conn.offline")}: ${refusalText(e)}`, true);
      return;
    }
    this.page.setConnection(t("conn.connected"));
    body.innerHTML =
      games
        .map((g) => {
          const id = gameId(g.name);
          const mine = savedSeat(id);
          const people = g.seats
            .map((s) => (s.bot ? t("lobby.bot") : s.taken ? escape(s.playerName || "?") : t("lobby.open")))
            .join(", ");
          const actions = [
            mine ? `<a href="#/play/${id}">${escape(t("lobby.return"))}</a>` : "",
            !mine && g.openSeats > 0 ? `<button type="button" data-join="${id}">${escape(t("lobby.join"))}</button>` : "",
            `<a href="#/watch/${id}">${escape(t("lobby.watch"))}</a>`,
          ].join(" ");
          const state = g.status === GameStatus.WAITING ? t("lobby.waiting", { n: g.openSeats }) : t("lobby.playing");
          return `<tr><td class="game-id">${id.slice(0, 8)}</td><td title="${escape(describeVariant(g.variant))}">${escape(variantName(g.variant))}</td><td class="people">${people}</td><td>${escape(state)}</td><td>${actions}</td></tr>`;
        })
        .join("") || `<tr><td colspan="5" class="muted">${escape(t("lobby.none"))}</td></tr>`;
    body.querySelectorAll<HTMLButtonElement>("button[data-join]").forEach((b) =>
      b.addEventListener("click", () => void this.join(b.dataset["join"] ?? "")),
    );
  }

  /**
   * The page of an invite link (`#invite=CODE`, with the host's name and
   * the variant when the link carries them): who invites, to what, a name,
   * then a seat of the table it opens.
   */
  async openInvite(invite: { code: string } & InviteWords): Promise<void> {
    const { app } = this.page;
    const { code, from } = invite;
    const name = localStorage.getItem("ramino:name") ?? "";
    const variant = invite.variant ? describeVariant(invite.variant) : "";
    const text = from
      ? variant
        ? t("invite.fromTo", { who: from, variant: variantName(invite.variant) })
        : t("invite.from", { who: from })
      : t("invite.text");
    app.innerHTML = `
    <section class="panel" aria-labelledby="invited">
      <h2 id="invited">${escape(t("invite.title"))}</h2>
      <p id="invite-words">${escape(text)}</p>
      ${variant ? `<p class="muted" id="invite-variant">${escape(variant)}</p>` : ""}
      <form id="accept" class="row">
        <label>${escape(t("lobby.name"))} <input name="name" required maxlength="32" value="${escape(name)}" autocomplete="nickname"></label>
        <button class="primary" type="submit">${escape(t("invite.join"))}</button>
      </form>
      <p id="lobby-error" class="error" role="alert"></p>
    </section>`;
    const form = document.getElementById("accept") as HTMLFormElement;
    const error = document.getElementById("lobby-error") as HTMLElement;
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const chosen = String(new FormData(form).get("name") ?? "").trim();
      localStorage.setItem("ramino:name", chosen);
      void (async () => {
        try {
          const seat = await this.page.client.joinInvite(code, chosen);
          const id = gameId(seat.name);
          saveSeat(id, { seat: seat.seat, token: seat.token });
          location.hash = `#/play/${id}`;
        } catch (e) {
          // A server that knows players seats only a signed-in one: said in
          // the friend's words, not the metadata's.
          error.textContent =
            e instanceof ServiceError && e.reason === "PLAYER_TOKEN_MISSING"
              ? t("invite.signIn", { who: from || t("invite.someone") })
              : refusalText(e);
        }
      })();
    });
  }

  private async join(id: string): Promise<void> {
    const error = document.getElementById("lobby-error") as HTMLElement;
    const input = document.querySelector<HTMLInputElement>("input[name=name]");
    const name = input?.value.trim() || "guest";
    localStorage.setItem("ramino:name", name);
    try {
      const seat = await this.page.client.join(id, name);
      saveSeat(id, { seat: seat.seat, token: seat.token });
      location.hash = `#/play/${id}`;
    } catch (e) {
      error.textContent = refusalText(e);
    }
  }
}
