/** The lobby: a new game (variant described, seats, bots), quick play, and the open games. */
import {
  BotLevel,
  GameStatus,
  TicketState,
  inviteLink,
  type BotLevelInfo,
  type Game,
  type Variant,
} from "@ramino/client/web";
import { explain, saveSeat, savedSeat, type Page } from "./table.ts";
import { escape, LEVELS } from "./text.ts";
import { t } from "./words.ts";

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

function describe(variant: string): string {
  const key = `variant.${variant}`;
  const text = t(key);
  return text === key ? variant : text;
}

export class Lobby {
  private timer: number | undefined;

  constructor(private readonly page: Page) {}

  private searching: AbortController | undefined;

  close(): void {
    if (this.timer !== undefined) window.clearInterval(this.timer);
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
        <p class="row"><label>${escape(t("lobby.inviteLink"))} <input id="invite-link" readonly size="60"></label>
        <button type="button" id="invite-copy">${escape(t("lobby.inviteCopy"))}</button>
        <a id="invite-go" href="#/">${escape(t("lobby.inviteGo"))}</a></p>
        <p id="invite-status" class="muted" role="status"></p>
      </div>
      <p id="variant-about" class="muted"></p>
      <p id="lobby-error" class="error" role="alert"></p>
    </section>
    <section class="panel" aria-labelledby="open-games">
      <h2 id="open-games">${escape(t("lobby.games"))}</h2>
      <div class="scroll"><table class="games"><thead><tr><th scope="col">${escape(t("lobby.game"))}</th><th scope="col">${escape(t("lobby.variant"))}</th><th scope="col">${escape(t("lobby.seats"))}</th><th scope="col">${escape(t("lobby.state"))}</th><th scope="col">${escape(t("lobby.actions"))}</th></tr></thead>
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
      error.textContent = t("lobby.unreachable", { why: explain(e) });
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
      .map((v) => `<option value="${escape(v.name)}">${escape(describe(v.name).split(":")[0] ?? v.name)}</option>`)
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
      about.textContent = v ? describe(v.name) : "";
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
    await this.refresh();
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
      error.textContent = explain(e);
    }
  }

  /**
   * Play with a friend: a private table (never listed) of the seats chosen,
   * the second one always a person's (the friend's), this person in the
   * first; its invite link is shown to send.
   */
  private async playWithAFriend(data: FormData, error: HTMLElement): Promise<void> {
    const { client } = this.page;
    const name = String(data.get("name") ?? "").trim();
    localStorage.setItem("ramino:name", name);
    const count = Number(data.get("seats") ?? 2);
    const seats: (string | BotLevel)[] = [name, ""];
    for (let s = 2; s < count; s++) {
      const kind = String(data.get(`seat${s}`));
      seats.push(LEVELS.find(([value]) => value === kind)?.[1] ?? "");
    }
    error.textContent = "";
    try {
      const created = await client.createGame({ variant: String(data.get("variant")), seats, private: true });
      const seat = await client.joinInvite(created.inviteCode, name, { seat: 0 });
      const id = gameId(created.name);
      saveSeat(id, { seat: seat.seat, token: seat.token });
      const link = document.getElementById("invite-link") as HTMLInputElement;
      link.value = inviteLink(pageAddress(), created.inviteCode);
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
      (document.getElementById("invite") as HTMLElement).hidden = false;
      link.focus();
      link.select();
    } catch (e) {
      error.textContent = explain(e);
    }
  }

  /** Quick play: a ticket for this variant and up to the seats chosen, until a table is found. */
  private async quickPlay(data: FormData, error: HTMLElement): Promise<void> {
    const status = document.getElementById("quick-status") as HTMLElement;
    const cancel = document.getElementById("quick-cancel") as HTMLButtonElement;
    const name = String(data.get("name") ?? "").trim();
    localStorage.setItem("ramino:name", name);
    const stop = new AbortController();
    this.searching = stop;
    cancel.hidden = false;
    cancel.onclick = () => stop.abort();
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
          status.textContent = t("lobby.quickEnded", { state: TicketState[update.state].toLowerCase() });
          return;
        }
        status.textContent = t("lobby.searching", { w: update.ratingWindow });
      }
    } catch (e) {
      if (!stop.signal.aborted) error.textContent = explain(e);
      else status.textContent = "";
    } finally {
      cancel.hidden = true;
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
      this.page.setConnection(`${t("conn.offline")}: ${explain(e)}`, true);
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
          return `<tr><td>${id.slice(0, 8)}</td><td title="${escape(describe(g.variant))}">${escape(describe(g.variant).split(":")[0] ?? g.variant)}</td><td>${people}</td><td>${escape(state)}</td><td>${actions}</td></tr>`;
        })
        .join("") || `<tr><td colspan="5" class="muted">${escape(t("lobby.none"))}</td></tr>`;
    body.querySelectorAll<HTMLButtonElement>("button[data-join]").forEach((b) =>
      b.addEventListener("click", () => void this.join(b.dataset["join"] ?? "")),
    );
  }

  /** The page of an invite link (`#invite=CODE`): a name, then a seat of the table it opens. */
  async openInvite(code: string): Promise<void> {
    const { app } = this.page;
    const name = localStorage.getItem("ramino:name") ?? "";
    app.innerHTML = `
    <section class="panel" aria-labelledby="invited">
      <h2 id="invited">${escape(t("invite.title"))}</h2>
      <p>${escape(t("invite.text"))}</p>
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
          error.textContent = explain(e);
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
      error.textContent = explain(e);
    }
  }
}
