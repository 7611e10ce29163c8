"""Every word ``ramino-play`` shows, one table per language, as the web page
has them: English, Italian (the words of the Italian seeds: combinazione,
scala, tris, jolly, tallone, scarti, calare, attaccare) and Ukrainian (the
words Rami 51's Ukrainian rules use: комбінація, ряд, сет, джокер, прикуп,
скидання, додати, відкриття, штрафні очки).

The language is the person's choice (``--lang``, or ``RAMINO_LANG`` as the
other options read ``RAMINO_*``), else the first of the system's language
settings that names one (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``,
as gettext reads them), else English.

A word that counts ("5 cards") has a form per CLDR plural category of its
language: English says one and other, Italian one, many (a whole million:
"1000000 di carte") and other, Ukrainian one (1, 21), few (2, 22), many (0,
5, 11, 25) and other (fractions, never a count of cards).

Rich markup stays in the words; ``{name}`` is filled from the parameters
(already escaped by the caller where they come from a person).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, TypeAlias

__all__ = [
    "COUNTED",
    "LANGS",
    "LANG_NAMES",
    "WORDS",
    "Lang",
    "choose",
    "count",
    "lang",
    "level",
    "plural",
    "set_lang",
    "t",
]

Lang: TypeAlias = Literal["en", "it", "uk"]
LANGS: tuple[Lang, ...] = ("en", "it", "uk")
LANG_NAMES: dict[Lang, str] = {"en": "English", "it": "Italiano", "uk": "Українська"}

_ENV = ("RAMINO_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_EN: dict[str, str] = {
    # The screen: help, intro, board.
    "help": """\
[bold]Commands[/bold] (cards by their number in your hand, or by code like [cyan]KD[/cyan], \
[cyan]10h[/cyan], [cyan]jk[/cyan]):
  [cyan]d[/cyan]                        draw from the stock
  [cyan]t[/cyan]                        take the top card of the discard pile
  [cyan]u[/cyan]                        turn the discard pile over (when the stock is empty)
  [cyan]m 1 2 3 / 4 5 6[/cyan]          lay melds (a run in ascending order)
  [cyan]o <card> <meld> \\[start|end][/cyan]  lay a card off on a table meld
  [cyan]s <card> <meld> \\[joker][/cyan]     give a card for a table meld's joker
  [cyan]x <card>[/cyan]                 discard (ends your turn)
  gin: [cyan]p[/cyan] pass the upcard · [cyan]k[/cyan] knock (the best knock) · \
[cyan]k <card>[/cyan] knock discarding that card · [cyan]k <card> 1 2 3 / 4 5 6[/cyan] \
knock with those melds · [cyan]a[/cyan] accept the layout (the defender, after laying off)
  [cyan]h[/cyan]                        hints: what you can meld, lay off, discard
  [cyan]b[/cyan]                        show the board again
  [cyan]q[/cyan]                        resign and quit
  [cyan]?[/cyan]                        this help""",
    "you": "you",
    "aCard": "a card",
    "and": " and ",
    "intro": (
        "You are [bold]{name}[/bold], seat {seat} of {game} ({variant}). "
        "Type [cyan]?[/cyan] for help."
    ),
    "waiting": ("Waiting for {players}; they join with: [cyan]ramino-play --game {game}[/cyan]"),
    "toPlay": "[dim]… {who} to play[/dim]",
    "board.rule": "Round {round} · {variant} · {game}",
    "col.seat": "seat",
    "col.player": "player",
    "col.cards": "cards",
    "col.opened": "opened",
    "col.total": "total",
    "col.thisRound": "this round",
    "col.howItCounts": "how it counts",
    "part.unknown": "{points}",
    "part.wentOut": "went out: {n}",
    "part.closedHand": "closed in hand: {n}",
    "part.handPenalty": "{n} in hand",
    "part.neverOpened": "{base} in hand → {n}: never opened",
    "part.closedHandMultiplier": "closed in hand × {factor}: {points}",
    "part.handCollected": "{who}'s hand {points}",
    "part.handCollectedNeverOpened": "{who}'s hand {base} → {n}: never opened",
    "part.rummyMultiplier": "rummy × {factor}: {points}",
    "part.opponentDeadwood": "{who}'s deadwood {points}",
    "part.ownDeadwood": "own deadwood {points}",
    "part.ginBonus": "gin {points}",
    "part.bigGinBonus": "big gin {points}",
    "part.undercutBonus": "undercut {points}",
    "part.rounds": "rounds {n}",
    "part.boxBonus": "box {base} × {factor}",
    "part.gameBonus": "game bonus {points}",
    "part.shutoutMultiplier": "shutout × {factor}: {points}",
    "col.round": "round {n}",
    "seat.you": " (you)",
    "seat.botName": "{level} bot {n}",
    "seat.default": "seat {n}",
    "seat.resigned": " [dim](resigned)[/dim]",
    "yes": "yes",
    "no": "no",
    "table": "[bold]Table[/bold]",
    "table.none": "[bold]Table[/bold] [dim]no melds yet[/dim]",
    "meld.row": "{kind} {value}, {owner}",
    "kind.run": "run",
    "kind.set": "set",
    "pile": "{card} [dim]({cards})[/dim]",
    "pile.empty": "empty",
    "piles": "[bold]Discard pile[/bold] {pile}    [bold]Stock[/bold] {stock}",
    "hand": "[bold]Your hand[/bold] ({cards})",
    "level.random": "random",
    "level.greedy": "greedy",
    "level.easy": "easy",
    "level.medium": "medium",
    "level.hard": "hard",
    "level.expert": "expert",
    # Hints.
    "hint.meld": "meld: [cyan]{cmd}[/cyan]  ({what}{value})",
    "hint.meldValue": ", {points}",
    "hint.layOff": "lay off: [cyan]{cmd}[/cyan]  ({card})",
    "hint.swap": "swap: [cyan]{cmd}[/cyan]  ({card} for the joker)",
    "hint.knock": "knock: [cyan]{cmd}[/cyan]  ({what}; {n} unmatched)",
    "hint.noMelds": "no melds",
    "hint.discard": "discard: [cyan]{cmd}[/cyan]  ({card})",
    "hint.split": "best split: {melds}; left over: {left} ({points})",
    "hint.none": "none",
    "hint.nothing": "nothing",
    "hint.cannotOpen": "you cannot open yet",
    "hints": "[bold]Hints[/bold]  ",
    "hints.none": "[dim]No hints: nothing to meld or lay off.[/dim]",
    # The prompt.
    "prompt.defend": (
        "Defend: [cyan]o[/cyan] lay off · [cyan]m[/cyan] meld · [cyan]a[/cyan] accept · "
        "[cyan]h[/cyan] hints [dim](? help)[/dim] > "
    ),
    "prompt.draw": "[cyan]d[/cyan] draw",
    "prompt.take": "[cyan]t[/cyan] take {card}",
    "prompt.turnOver": "[cyan]u[/cyan] turn the pile over",
    "prompt.pass": "[cyan]p[/cyan] pass",
    "prompt.drawAny": "draw",
    "prompt.yourTurn": "Your turn: {choices}  [dim](? help)[/dim] > ",
    "prompt.knock": " · [cyan]k[/cyan] knock",
    "prompt.playGin": (
        "Play: [cyan]x[/cyan] discard{knock} · [cyan]h[/cyan] hints [dim](? help)[/dim] > "
    ),
    "prompt.play": (
        "Play: [cyan]m[/cyan] meld · [cyan]o[/cyan] lay off · [cyan]s[/cyan] swap · "
        "[cyan]x[/cyan] discard · [cyan]h[/cyan] hints [dim](? help)[/dim] > "
    ),
    # Events: ".you" when the person did it, else with {who}.
    "ev.drew.you": "You draw{card} from the stock.",
    "ev.drew": "{who} draws from the stock.",
    "ev.took.you": "You take {card} from the pile.",
    "ev.took": "{who} takes {card} from the pile.",
    "ev.turnedOver.you": "You turn the discard pile over.",
    "ev.turnedOver": "{who} turns the discard pile over.",
    "ev.reshuffled": "The discard pile is shuffled into a new stock of {cards}.",
    "ev.opened.you": "You open with {melds}.",
    "ev.opened": "{who} opens with {melds}.",
    "ev.laid.you": "You lay {melds}.",
    "ev.laid": "{who} lays {melds}.",
    "ev.laidOff.you": "You lay off {card} on meld {n}.",
    "ev.laidOff": "{who} lays off {card} on meld {n}.",
    "ev.swapped.you": "You give {card} for the joker of meld {n}.",
    "ev.swapped": "{who} gives {card} for the joker of meld {n}.",
    "ev.discarded.you": "You discard {card}.",
    "ev.discarded": "{who} discards {card}.",
    "ev.resigned.you": "You resign.",
    "ev.resigned": "{who} resigns.",
    "ev.passed.you": "You pass on the upcard.",
    "ev.passed": "{who} passes on the upcard.",
    "ev.knocked.you": "You knock with {n} unmatched: {melds}.",
    "ev.knocked": "{who} knocks with {n} unmatched: {melds}.",
    "ev.gin.you": "You go gin: {melds}.",
    "ev.gin": "{who} goes gin: {melds}.",
    "ev.accepted.you": "You accept the layout.",
    "ev.accepted": "{who} accepts the layout.",
    "ev.roundStarted": "[bold]Round {n}[/bold] is dealt; {who} to play first.",
    "ev.joined": "{name} takes seat {seat}.",
    "ev.timedOut.you": "You ran out of time: a bot plays that turn.",
    "ev.timedOut": "{who} ran out of time: a bot plays that turn.",
    "ev.gameEnded": "[bold]The game has ended[/bold] before its match: {reason}.",
    # A round's end, the match's end.
    "ending.wentOut": "{who} went out",
    "ending.wentOut.you": "you went out",
    "ending.stockExhausted": "the stock ran out",
    "ending.resignations": "everyone else resigned",
    "round.over": "[bold]Round {n} is over:[/bold] {how}.",
    "final.rule": "Game over",
    "final.youWin": "[bold green]You win the match.[/bold green]",
    "final.win": "[bold green]{who} wins the match.[/bold green]",
    "final.seed": "[dim]Seed {seed} (published hash {hash}…)[/dim]",
    "comeBack": "Left without resigning. Come back with: [cyan]{command}[/cyan]",
    # What the commands refuse.
    "cmd.layOffHow": "Lay off how? o <card> <meld> [start|end], e.g. o 4 2",
    "cmd.swapHow": "Swap how? s <card> <meld> [joker], e.g. s 4 2",
    "cmd.discardWhich": "Discard which card? x <card>, e.g. x 7",
    "cmd.unknown": "Unknown command {word}; type ? for help.",
    "cmd.noCardNumber": "No card {n} in your hand (1 to {count}).",
    "cmd.notACard": "{word} is neither a card number nor a card like KD.",
    "cmd.noSuchCard": "No {word} in your hand.",
    "cmd.noId": "{card} has no id to send.",
    "cmd.twice": "{card} is named twice.",
    "cmd.meldWhich": "Meld which cards? m 1 2 3 / 4 5 6",
    "cmd.noMeldYet": "There is no meld on the table yet.",
    "cmd.noMeld": "No meld {word} on the table (1 to {count}).",
    "cmd.end": "The end is start or end.",
    "cmd.noJoker": "That meld has no joker.",
    "cmd.whichJoker": "That meld has {jokers}: say which, 1 to {n}.",
    "cmd.jokerNumber": "Say which joker of the meld, 1 to {n}.",
    "cmd.cannotKnock": "You cannot knock now: your unmatched cards total too much.",
    "cmd.noKnock": "No knock discarding that card; k alone knocks at best.",
    "cmd.knockTwice": "The card you discard to knock is named twice: it cannot be in a meld.",
    "cmd.unknownBot": "unknown bot {word} (choose from {choices})",
    # The session.
    "lostServer": "[red]Lost the server:[/red] {message} [dim]({reason})[/dim]",
    "lostFeed": "[red]Lost the game's feed:[/red] {error}",
    "movedOn": "[yellow]The game moved on meanwhile; here it is now.[/yellow]",
    "refused": "[red]Refused:[/red] {message} [dim]({reason})[/dim]",
    "serverNo": "[red]The server said no:[/red] {message} [dim]({reason})[/dim]",
    "resignAsk": "Resign and leave the game? \\[y/N] ",
    "resignYes": "y yes",
    "resignFailed": "[red]Could not resign:[/red] {message} ({reason})",
    "goesOn": "The game goes on without you.",
    # Taking a seat (the command line).
    "cannotStart": "[red]Cannot start:[/red] {message} [dim]({reason})[/dim]",
    "joinedInvite": "Joined [bold]{game}[/bold] by its invite: you are seat {seat}.",
    "needBot": "ramino-play: name at least one bot with --bots",
    "started": "Started [bold]{game}[/bold] ({variant}) against {bots} on {server}.",
    "botRating": "{level} (rating {rating})",
    "levels.title": "Bot levels",
    "levels.level": "level",
    "levels.rating": "rating",
    "levels.time": "time a move",
    "levels.how": "how it plays",
    "levels.cannot": "[red]Cannot list the levels:[/red] {message}",
    "levels.note": (
        "rating: mu - 3 sigma on one OpenSkill scale of the levels, from the server's "
        "arena of every level against every other; pick one with --bots LEVEL"
    ),
    "seatsRange": "ramino-play: --seats is MIN-MAX, e.g. 2-4, not {text}",
    "quick.needToken": "ramino-play: --quick needs your player token (--player-token)",
    "quick.needInvitation": "ramino-play: --party parties/ID needs the --invitation you were sent",
    "quick.botOpponent": "{name} ({level} bot)",
    "quick.found": "Found [bold]{game}[/bold]: you are seat {seat}.",
    "quick.foundAgainst": "Found [bold]{game}[/bold]: you are seat {seat}, against {against}.",
    "quick.ended": "ramino-play: the search ended: {state}",
    "quick.endedPlain": "ramino-play: the search ended",
    "quick.wait": ", about {s} s",
    "quick.searching": (
        "Searching for a {variant} table of {low} to {high} "
        "(players within {window} points; {waiting} waiting{wait})..."
    ),
    "party.needWith": "ramino-play: --party needs the players to invite (--with PLAYER)",
    "party.invited": "Invited [bold]{player}[/bold]: they run  {command}",
    "party.joined": "{name} joined.",
    "party.joinedLeader": "Joined the party of [bold]{leader}[/bold]: waiting for the table...",
}

_IT: dict[str, str] = {
    "help": """\
[bold]Comandi[/bold] (le carte per numero nella tua mano, o per codice come [cyan]KD[/cyan], \
[cyan]10h[/cyan], [cyan]jk[/cyan]):
  [cyan]d[/cyan]                        pesca dal tallone
  [cyan]t[/cyan]                        prendi la carta in cima agli scarti
  [cyan]u[/cyan]                        gira gli scarti (quando il tallone è finito)
  [cyan]m 1 2 3 / 4 5 6[/cyan]          cala combinazioni (una scala in ordine crescente)
  [cyan]o <carta> <comb.> \\[start|end][/cyan]  attacca una carta a una combinazione in tavola \
(all'inizio o alla fine)
  [cyan]s <carta> <comb.> \\[jolly][/cyan]   dai una carta per il jolly di una combinazione \
in tavola
  [cyan]x <carta>[/cyan]                scarta (chiude il tuo turno)
  gin: [cyan]p[/cyan] passa la carta scoperta · [cyan]k[/cyan] bussa (nel modo migliore) · \
[cyan]k <carta>[/cyan] bussa scartando quella carta · [cyan]k <carta> 1 2 3 / 4 5 6[/cyan] \
bussa con quelle combinazioni · [cyan]a[/cyan] accetta le combinazioni (chi difende, dopo aver \
attaccato)
  [cyan]h[/cyan]                        suggerimenti: cosa puoi calare, attaccare, scartare
  [cyan]b[/cyan]                        mostra di nuovo il tavolo
  [cyan]q[/cyan]                        ritirati ed esci
  [cyan]?[/cyan]                        questo aiuto""",
    "you": "tu",
    "aCard": "una carta",
    "and": " e ",
    "intro": (
        "Sei [bold]{name}[/bold], posto {seat} di {game} ({variant}). "
        "Scrivi [cyan]?[/cyan] per l'aiuto."
    ),
    "waiting": (
        "In attesa: mancano {players}; si siedono con: [cyan]ramino-play --game {game}[/cyan]"
    ),
    "toPlay": "[dim]… tocca a {who}[/dim]",
    "board.rule": "Smazzata {round} · {variant} · {game}",
    "col.seat": "posto",
    "col.player": "giocatore",
    "col.cards": "carte",
    "col.opened": "aperto",
    "col.total": "totale",
    "col.thisRound": "questa smazzata",
    "col.howItCounts": "come si conta",
    "part.unknown": "{points}",
    "part.wentOut": "chiusura: {n}",
    "part.closedHand": "chiusura in mano: {n}",
    "part.handPenalty": "{n} in mano",
    "part.neverOpened": "{base} in mano → {n}: mai aperto",
    "part.closedHandMultiplier": "chiusura in mano × {factor}: {points}",
    "part.handCollected": "mano di {who} {points}",
    "part.handCollectedNeverOpened": "mano di {who} {base} → {n}: mai aperto",
    "part.rummyMultiplier": "rummy × {factor}: {points}",
    "part.opponentDeadwood": "punti scoperti di {who} {points}",
    "part.ownDeadwood": "propri punti scoperti {points}",
    "part.ginBonus": "gin {points}",
    "part.bigGinBonus": "big gin {points}",
    "part.undercutBonus": "undercut {points}",
    "part.rounds": "smazzate {n}",
    "part.boxBonus": "box {base} × {factor}",
    "part.gameBonus": "bonus partita {points}",
    "part.shutoutMultiplier": "cappotto × {factor}: {points}",
    "col.round": "smazzata {n}",
    "seat.you": " (tu)",
    "seat.botName": "Bot {n} ({level})",
    "seat.default": "posto {n}",
    "seat.resigned": " [dim](ritirato)[/dim]",
    "yes": "sì",
    "no": "no",
    "table": "[bold]Tavolo[/bold]",
    "table.none": "[bold]Tavolo[/bold] [dim]ancora nessuna combinazione[/dim]",
    "meld.row": "{kind} {value}, {owner}",
    "kind.run": "scala",
    "kind.set": "tris",
    "pile": "{card} [dim]({cards})[/dim]",
    "pile.empty": "vuoti",
    "piles": "[bold]Scarti[/bold] {pile}    [bold]Tallone[/bold] {stock}",
    "hand": "[bold]La tua mano[/bold] ({cards})",
    "level.random": "a caso",
    "level.greedy": "avido",
    "level.easy": "facile",
    "level.medium": "medio",
    "level.hard": "difficile",
    "level.expert": "esperto",
    "hint.meld": "cala: [cyan]{cmd}[/cyan]  ({what}{value})",
    "hint.meldValue": ", {points}",
    "hint.layOff": "attacca: [cyan]{cmd}[/cyan]  ({card})",
    "hint.swap": "scambia: [cyan]{cmd}[/cyan]  ({card} per il jolly)",
    "hint.knock": "bussa: [cyan]{cmd}[/cyan]  ({what}; {n} punti scoperti)",
    "hint.noMelds": "nessuna combinazione",
    "hint.discard": "scarta: [cyan]{cmd}[/cyan]  ({card})",
    "hint.split": "divisione migliore: {melds}; restano: {left} ({points})",
    "hint.none": "nessuna",
    "hint.nothing": "niente",
    "hint.cannotOpen": "non puoi ancora aprire",
    "hints": "[bold]Suggerimenti[/bold]  ",
    "hints.none": "[dim]Nessun suggerimento: niente da calare o attaccare.[/dim]",
    "prompt.defend": (
        "Difendi: [cyan]o[/cyan] attacca · [cyan]m[/cyan] cala · [cyan]a[/cyan] accetta · "
        "[cyan]h[/cyan] suggerimenti [dim](? aiuto)[/dim] > "
    ),
    "prompt.draw": "[cyan]d[/cyan] pesca",
    "prompt.take": "[cyan]t[/cyan] prendi {card}",
    "prompt.turnOver": "[cyan]u[/cyan] gira gli scarti",
    "prompt.pass": "[cyan]p[/cyan] passa",
    "prompt.drawAny": "pesca",
    "prompt.yourTurn": "Tocca a te: {choices}  [dim](? aiuto)[/dim] > ",
    "prompt.knock": " · [cyan]k[/cyan] bussa",
    "prompt.playGin": (
        "Gioca: [cyan]x[/cyan] scarta{knock} · [cyan]h[/cyan] suggerimenti [dim](? aiuto)[/dim] > "
    ),
    "prompt.play": (
        "Gioca: [cyan]m[/cyan] cala · [cyan]o[/cyan] attacca · [cyan]s[/cyan] scambia · "
        "[cyan]x[/cyan] scarta · [cyan]h[/cyan] suggerimenti [dim](? aiuto)[/dim] > "
    ),
    "ev.drew.you": "Peschi{card} dal tallone.",
    "ev.drew": "{who} pesca dal tallone.",
    "ev.took.you": "Prendi {card} dagli scarti.",
    "ev.took": "{who} prende {card} dagli scarti.",
    "ev.turnedOver.you": "Giri gli scarti.",
    "ev.turnedOver": "{who} gira gli scarti.",
    "ev.reshuffled": "Gli scarti sono mescolati in un nuovo tallone di {cards}.",
    "ev.opened.you": "Apri con {melds}.",
    "ev.opened": "{who} apre con {melds}.",
    "ev.laid.you": "Cali {melds}.",
    "ev.laid": "{who} cala {melds}.",
    "ev.laidOff.you": "Attacchi {card} alla combinazione {n}.",
    "ev.laidOff": "{who} attacca {card} alla combinazione {n}.",
    "ev.swapped.you": "Dai {card} per il jolly della combinazione {n}.",
    "ev.swapped": "{who} dà {card} per il jolly della combinazione {n}.",
    "ev.discarded.you": "Scarti {card}.",
    "ev.discarded": "{who} scarta {card}.",
    "ev.resigned.you": "Ti ritiri.",
    "ev.resigned": "{who} si ritira.",
    "ev.passed.you": "Passi la carta scoperta.",
    "ev.passed": "{who} passa la carta scoperta.",
    "ev.knocked.you": "Bussi con {n} punti scoperti: {melds}.",
    "ev.knocked": "{who} bussa con {n} punti scoperti: {melds}.",
    "ev.gin.you": "Fai gin: {melds}.",
    "ev.gin": "{who} fa gin: {melds}.",
    "ev.accepted.you": "Accetti le combinazioni.",
    "ev.accepted": "{who} accetta le combinazioni.",
    "ev.roundStarted": "[bold]Smazzata {n}[/bold] distribuita; comincia {who}.",
    "ev.joined": "{name} si siede al posto {seat}.",
    "ev.timedOut.you": "Hai finito il tempo: un bot gioca quel turno.",
    "ev.timedOut": "{who} ha finito il tempo: un bot gioca quel turno.",
    "ev.gameEnded": "[bold]La partita è finita[/bold] prima della fine: {reason}.",
    "ending.wentOut": "{who} ha chiuso",
    "ending.wentOut.you": "hai chiuso tu",
    "ending.stockExhausted": "il tallone è finito",
    "ending.resignations": "tutti gli altri si sono ritirati",
    "round.over": "[bold]La smazzata {n} è finita:[/bold] {how}.",
    "final.rule": "Partita finita",
    "final.youWin": "[bold green]Hai vinto la partita.[/bold green]",
    "final.win": "[bold green]{who} vince la partita.[/bold green]",
    "final.seed": "[dim]Seme {seed} (hash pubblicato {hash}…)[/dim]",
    "comeBack": "Hai lasciato il tavolo senza ritirarti. Torna con: [cyan]{command}[/cyan]",
    "cmd.layOffHow": "Attaccare come? o <carta> <combinazione> [start|end], per es. o 4 2",
    "cmd.swapHow": "Scambiare come? s <carta> <combinazione> [jolly], per es. s 4 2",
    "cmd.discardWhich": "Scartare quale carta? x <carta>, per es. x 7",
    "cmd.unknown": "Comando sconosciuto {word}; scrivi ? per l'aiuto.",
    "cmd.noCardNumber": "Nessuna carta {n} nella tua mano (da 1 a {count}).",
    "cmd.notACard": "{word} non è né il numero di una carta né una carta come KD.",
    "cmd.noSuchCard": "Nessun {word} nella tua mano.",
    "cmd.noId": "{card} non ha un id da inviare.",
    "cmd.twice": "{card} è nominata due volte.",
    "cmd.meldWhich": "Calare quali carte? m 1 2 3 / 4 5 6",
    "cmd.noMeldYet": "Non c'è ancora nessuna combinazione in tavola.",
    "cmd.noMeld": "Nessuna combinazione {word} in tavola (da 1 a {count}).",
    "cmd.end": "L'estremità è start (inizio) o end (fine).",
    "cmd.noJoker": "Quella combinazione non ha jolly.",
    "cmd.whichJoker": "Quella combinazione ha {jokers}: di' quale, da 1 a {n}.",
    "cmd.jokerNumber": "Di' quale jolly della combinazione, da 1 a {n}.",
    "cmd.cannotKnock": "Ora non puoi bussare: le tue carte scoperte valgono troppo.",
    "cmd.noKnock": "Non si bussa scartando quella carta; k da solo bussa nel modo migliore.",
    "cmd.knockTwice": (
        "La carta che scarti per bussare è nominata due volte: non può stare in una combinazione."
    ),
    "cmd.unknownBot": "bot sconosciuto {word} (scegli tra {choices})",
    "lostServer": "[red]Server perso:[/red] {message} [dim]({reason})[/dim]",
    "lostFeed": "[red]Flusso della partita perso:[/red] {error}",
    "movedOn": "[yellow]Nel frattempo la partita è andata avanti; eccola ora.[/yellow]",
    "refused": "[red]Rifiutata:[/red] {message} [dim]({reason})[/dim]",
    "serverNo": "[red]Il server ha detto no:[/red] {message} [dim]({reason})[/dim]",
    "resignAsk": "Ritirarti e lasciare la partita? \\[s/N] ",
    "resignYes": "s sì si y yes",
    "resignFailed": "[red]Impossibile ritirarsi:[/red] {message} ({reason})",
    "goesOn": "La partita continua senza di te.",
    "cannotStart": "[red]Impossibile iniziare:[/red] {message} [dim]({reason})[/dim]",
    "joinedInvite": "Ti siedi in [bold]{game}[/bold] con l'invito: sei al posto {seat}.",
    "needBot": "ramino-play: indica almeno un bot con --bots",
    "started": "Iniziata [bold]{game}[/bold] ({variant}) contro {bots} su {server}.",
    "botRating": "{level} (punteggio {rating})",
    "levels.title": "Livelli dei bot",
    "levels.level": "livello",
    "levels.rating": "punteggio",
    "levels.time": "tempo a mossa",
    "levels.how": "come gioca",
    "levels.cannot": "[red]Impossibile elencare i livelli:[/red] {message}",
    "levels.note": (
        "punteggio: mu - 3 sigma su un'unica scala OpenSkill dei livelli, dal torneo del "
        "server di ogni livello contro ogni altro; scegline uno con --bots LIVELLO"
    ),
    "seatsRange": "ramino-play: --seats è MIN-MAX, per es. 2-4, non {text}",
    "quick.needToken": "ramino-play: --quick richiede il tuo token di giocatore (--player-token)",
    "quick.needInvitation": (
        "ramino-play: --party parties/ID richiede l'--invitation che hai ricevuto"
    ),
    "quick.botOpponent": "{name} (bot {level})",
    "quick.found": "Trovata [bold]{game}[/bold]: sei al posto {seat}.",
    "quick.foundAgainst": "Trovata [bold]{game}[/bold]: sei al posto {seat}, contro {against}.",
    "quick.ended": "ramino-play: la ricerca è finita: {state}",
    "quick.endedPlain": "ramino-play: la ricerca è finita",
    "quick.wait": ", circa {s} s",
    "quick.searching": (
        "Cerco un tavolo di {variant} da {low} a {high} "
        "(giocatori entro {window} punti; {waiting} in attesa{wait})..."
    ),
    "party.needWith": "ramino-play: --party richiede i giocatori da invitare (--with GIOCATORE)",
    "party.invited": "Hai invitato [bold]{player}[/bold]: dovrà eseguire  {command}",
    "party.joined": "{name} entra nel gruppo.",
    "party.joinedLeader": "Sei nel gruppo di [bold]{leader}[/bold]: in attesa del tavolo...",
}

_UK: dict[str, str] = {
    "help": """\
[bold]Команди[/bold] (карти — за їхнім номером у руці або кодом, як-от [cyan]KD[/cyan], \
[cyan]10h[/cyan], [cyan]jk[/cyan]):
  [cyan]d[/cyan]                        взяти карту з прикупу
  [cyan]t[/cyan]                        взяти верхню карту зі скидання
  [cyan]u[/cyan]                        перевернути скидання (коли прикуп порожній)
  [cyan]m 1 2 3 / 4 5 6[/cyan]          викласти комбінації (ряд — за зростанням)
  [cyan]o <карта> <комб.> \\[start|end][/cyan]  додати карту до комбінації на столі \
(на початок або в кінець)
  [cyan]s <карта> <комб.> \\[джокер][/cyan]  віддати карту за джокера з комбінації на столі
  [cyan]x <карта>[/cyan]                скинути (завершує ваш хід)
  джин: [cyan]p[/cyan] пропустити відкриту карту · [cyan]k[/cyan] стукнути (найкращий стук) · \
[cyan]k <карта>[/cyan] стукнути, скинувши цю карту · [cyan]k <карта> 1 2 3 / 4 5 6[/cyan] \
стукнути з цими комбінаціями · [cyan]a[/cyan] прийняти розклад (той, хто захищається, \
після додавання карт)
  [cyan]h[/cyan]                        підказки: що можна викласти, додати, скинути
  [cyan]b[/cyan]                        показати стіл ще раз
  [cyan]q[/cyan]                        здатися й вийти
  [cyan]?[/cyan]                        ця довідка""",
    "you": "ви",
    "aCard": "карту",
    "and": " і ",
    "intro": (
        "Ви — [bold]{name}[/bold], місце {seat} у грі {game} ({variant}). "
        "Довідка: [cyan]?[/cyan]."
    ),
    "waiting": (
        "Чекаємо на гравців, бракує: {players}. Вони приєднуються командою: "
        "[cyan]ramino-play --game {game}[/cyan]"
    ),
    "toPlay": "[dim]… хід: {who}[/dim]",
    "board.rule": "Раунд {round} · {variant} · {game}",
    "col.seat": "місце",
    "col.player": "гравець",
    "col.cards": "карти",
    "col.opened": "відкриття",
    "col.total": "разом",
    "col.thisRound": "цей раунд",
    "col.howItCounts": "як рахується",
    "part.unknown": "{points}",
    "part.wentOut": "вихід: {n}",
    "part.closedHand": "закриття з руки: {n}",
    "part.handPenalty": "у руці: {n}",
    "part.neverOpened": "у руці {base} → {n}: без відкриття",
    "part.closedHandMultiplier": "закриття з руки × {factor}: {points}",
    "part.handCollected": "рука: {who} {points}",
    "part.handCollectedNeverOpened": "рука: {who} {base} → {n}: без відкриття",
    "part.rummyMultiplier": "рамі × {factor}: {points}",
    "part.opponentDeadwood": "незібрані: {who} {points}",
    "part.ownDeadwood": "власні незібрані {points}",
    "part.ginBonus": "джин {points}",
    "part.bigGinBonus": "великий джин {points}",
    "part.undercutBonus": "підріз {points}",
    "part.rounds": "раунди {n}",
    "part.boxBonus": "бокс {base} × {factor}",
    "part.gameBonus": "бонус за партію {points}",
    "part.shutoutMultiplier": "сухий рахунок × {factor}: {points}",
    "col.round": "раунд {n}",
    "seat.you": " (ви)",
    "seat.botName": "Бот {n} ({level})",
    "seat.default": "місце {n}",
    "seat.resigned": " [dim](поза грою)[/dim]",
    "yes": "так",
    "no": "ні",
    "table": "[bold]Стіл[/bold]",
    "table.none": "[bold]Стіл[/bold] [dim]комбінацій ще немає[/dim]",
    "meld.row": "{kind} {value}, {owner}",
    "kind.run": "ряд",
    "kind.set": "сет",
    "pile": "{card} [dim]({cards})[/dim]",
    "pile.empty": "порожньо",
    "piles": "[bold]Скидання[/bold] {pile}    [bold]Прикуп[/bold] {stock}",
    "hand": "[bold]Ваша рука[/bold] ({cards})",
    "level.random": "випадковий",
    "level.greedy": "жадібний",
    "level.easy": "легкий",
    "level.medium": "середній",
    "level.hard": "складний",
    "level.expert": "експерт",
    "hint.meld": "викласти: [cyan]{cmd}[/cyan]  ({what}{value})",
    "hint.meldValue": ", {points}",
    "hint.layOff": "додати: [cyan]{cmd}[/cyan]  ({card})",
    "hint.swap": "обміняти: [cyan]{cmd}[/cyan]  ({card} за джокера)",
    "hint.knock": "стукнути: [cyan]{cmd}[/cyan]  ({what}; штрафних очок: {n})",
    "hint.noMelds": "без комбінацій",
    "hint.discard": "скинути: [cyan]{cmd}[/cyan]  ({card})",
    "hint.split": "найкращий розклад: {melds}; лишаються: {left} ({points})",
    "hint.none": "жодної",
    "hint.nothing": "нічого",
    "hint.cannotOpen": "відкритися поки не можна",
    "hints": "[bold]Підказки[/bold]  ",
    "hints.none": "[dim]Підказок немає: нічого викласти чи додати.[/dim]",
    "prompt.defend": (
        "Захист: [cyan]o[/cyan] додати · [cyan]m[/cyan] викласти · [cyan]a[/cyan] прийняти · "
        "[cyan]h[/cyan] підказки [dim](? довідка)[/dim] > "
    ),
    "prompt.draw": "[cyan]d[/cyan] взяти з прикупу",
    "prompt.take": "[cyan]t[/cyan] взяти {card}",
    "prompt.turnOver": "[cyan]u[/cyan] перевернути скидання",
    "prompt.pass": "[cyan]p[/cyan] пропустити",
    "prompt.drawAny": "взяти карту",
    "prompt.yourTurn": "Ваш хід: {choices}  [dim](? довідка)[/dim] > ",
    "prompt.knock": " · [cyan]k[/cyan] стукнути",
    "prompt.playGin": (
        "Гра: [cyan]x[/cyan] скинути{knock} · [cyan]h[/cyan] підказки [dim](? довідка)[/dim] > "
    ),
    "prompt.play": (
        "Гра: [cyan]m[/cyan] викласти · [cyan]o[/cyan] додати · [cyan]s[/cyan] обміняти · "
        "[cyan]x[/cyan] скинути · [cyan]h[/cyan] підказки [dim](? довідка)[/dim] > "
    ),
    "ev.drew.you": "Ви берете{card} з прикупу.",
    "ev.drew": "{who} бере карту з прикупу.",
    "ev.took.you": "Ви берете {card} зі скидання.",
    "ev.took": "{who} бере {card} зі скидання.",
    "ev.turnedOver.you": "Ви перевертаєте скидання.",
    "ev.turnedOver": "{who} перевертає скидання.",
    "ev.reshuffled": "Скидання перетасовано в новий прикуп: {cards}.",
    "ev.opened.you": "Ви відкриваєтеся: {melds}.",
    "ev.opened": "{who} відкривається: {melds}.",
    "ev.laid.you": "Ви викладаєте {melds}.",
    "ev.laid": "{who} викладає {melds}.",
    "ev.laidOff.you": "Ви додаєте {card} до комбінації {n}.",
    "ev.laidOff": "{who} додає {card} до комбінації {n}.",
    "ev.swapped.you": "Ви віддаєте {card} за джокера з комбінації {n}.",
    "ev.swapped": "{who} віддає {card} за джокера з комбінації {n}.",
    "ev.discarded.you": "Ви скидаєте {card}.",
    "ev.discarded": "{who} скидає {card}.",
    "ev.resigned.you": "Ви здаєтеся.",
    "ev.resigned": "{who} здається.",
    "ev.passed.you": "Ви пропускаєте відкриту карту.",
    "ev.passed": "{who} пропускає відкриту карту.",
    "ev.knocked.you": "Ви стукаєте (штрафних очок: {n}): {melds}.",
    "ev.knocked": "{who} стукає (штрафних очок: {n}): {melds}.",
    "ev.gin.you": "Ви робите джин: {melds}.",
    "ev.gin": "{who} робить джин: {melds}.",
    "ev.accepted.you": "Ви приймаєте розклад.",
    "ev.accepted": "{who} приймає розклад.",
    "ev.roundStarted": "[bold]Раунд {n}[/bold] роздано; першим ходить: {who}.",
    "ev.joined": "{name} сідає на місце {seat}.",
    "ev.timedOut.you": "Ваш час вийшов: цей хід зіграє бот.",
    "ev.timedOut": "{who}: час вийшов, цей хід зіграє бот.",
    "ev.gameEnded": "[bold]Гру завершено[/bold] раніше, ніж партію: {reason}.",
    "ending.wentOut": "{who} позбувається всіх карт",
    "ending.wentOut.you": "ви позбулися всіх карт",
    "ending.stockExhausted": "прикуп вичерпано",
    "ending.resignations": "решта гравців здалися",
    "round.over": "[bold]Раунд {n} завершено:[/bold] {how}.",
    "final.rule": "Гру завершено",
    "final.youWin": "[bold green]Ви виграли партію.[/bold green]",
    "final.win": "[bold green]Партію виграє {who}.[/bold green]",
    "final.seed": "[dim]Зерно {seed} (оприлюднений хеш {hash}…)[/dim]",
    "comeBack": "Ви вийшли, не здавшись. Повернутися: [cyan]{command}[/cyan]",
    "cmd.layOffHow": "Як додати? o <карта> <комбінація> [start|end], напр. o 4 2",
    "cmd.swapHow": "Як обміняти? s <карта> <комбінація> [джокер], напр. s 4 2",
    "cmd.discardWhich": "Яку карту скинути? x <карта>, напр. x 7",
    "cmd.unknown": "Невідома команда {word}; довідка: ?.",
    "cmd.noCardNumber": "У вашій руці немає карти {n} (від 1 до {count}).",
    "cmd.notACard": "{word} — це ні номер карти, ні карта на кшталт KD.",
    "cmd.noSuchCard": "У вашій руці немає {word}.",
    "cmd.noId": "{card} не має ідентифікатора, щоб його надіслати.",
    "cmd.twice": "{card} названо двічі.",
    "cmd.meldWhich": "Які карти викласти? m 1 2 3 / 4 5 6",
    "cmd.noMeldYet": "На столі ще немає комбінацій.",
    "cmd.noMeld": "На столі немає комбінації {word} (від 1 до {count}).",
    "cmd.end": "Кінець — це start (початок) або end (кінець).",
    "cmd.noJoker": "У цій комбінації немає джокера.",
    "cmd.whichJoker": "У цій комбінації {jokers}: скажіть, котрий, від 1 до {n}.",
    "cmd.jokerNumber": "Скажіть, котрий джокер комбінації, від 1 до {n}.",
    "cmd.cannotKnock": "Зараз стукнути не можна: у незібраних картах забагато очок.",
    "cmd.noKnock": "Стукнути, скинувши цю карту, не можна; k без карти — найкращий стук.",
    "cmd.knockTwice": (
        "Карту, яку ви скидаєте, щоб стукнути, названо двічі: у комбінації її бути не може."
    ),
    "cmd.unknownBot": "невідомий бот {word} (виберіть із: {choices})",
    "lostServer": "[red]Зв'язок із сервером утрачено:[/red] {message} [dim]({reason})[/dim]",
    "lostFeed": "[red]Потік гри втрачено:[/red] {error}",
    "movedOn": "[yellow]Тим часом гра пішла далі; ось вона тепер.[/yellow]",
    "refused": "[red]Відмовлено:[/red] {message} [dim]({reason})[/dim]",
    "serverNo": "[red]Сервер відмовив:[/red] {message} [dim]({reason})[/dim]",
    "resignAsk": "Здатися й вийти з гри? \\[т/Н] ",
    "resignYes": "т так y yes",
    "resignFailed": "[red]Не вдалося здатися:[/red] {message} ({reason})",
    "goesOn": "Гра триває без вас.",
    "cannotStart": "[red]Не вдалося почати:[/red] {message} [dim]({reason})[/dim]",
    "joinedInvite": "Ви приєдналися до [bold]{game}[/bold] за запрошенням: ваше місце {seat}.",
    "needBot": "ramino-play: назвіть хоча б одного бота в --bots",
    "started": "Почато [bold]{game}[/bold] ({variant}), суперники: {bots}; сервер {server}.",
    "botRating": "{level} (рейтинг {rating})",
    "levels.title": "Рівні ботів",
    "levels.level": "рівень",
    "levels.rating": "рейтинг",
    "levels.time": "час на хід",
    "levels.how": "як грає",
    "levels.cannot": "[red]Не вдалося отримати рівні:[/red] {message}",
    "levels.note": (
        "рейтинг: mu - 3 sigma на одній шкалі OpenSkill для всіх рівнів, за турніром "
        "сервера, де кожен рівень грає з кожним; виберіть рівень через --bots РІВЕНЬ"
    ),
    "seatsRange": "ramino-play: --seats має вигляд MIN-MAX, напр. 2-4, а не {text}",
    "quick.needToken": "ramino-play: для --quick потрібен ваш токен гравця (--player-token)",
    "quick.needInvitation": (
        "ramino-play: для --party parties/ID потрібне надіслане вам запрошення (--invitation)"
    ),
    "quick.botOpponent": "{name} (бот: {level})",
    "quick.found": "Знайдено [bold]{game}[/bold]: ваше місце {seat}.",
    "quick.foundAgainst": "Знайдено [bold]{game}[/bold]: ваше місце {seat}, суперники: {against}.",
    "quick.ended": "ramino-play: пошук завершено: {state}",
    "quick.endedPlain": "ramino-play: пошук завершено",
    "quick.wait": ", приблизно {s} с",
    "quick.searching": (
        "Шукаємо стіл {variant} на {low}–{high} гравців (рейтинг у межах ±{window}; "
        "у черзі: {waiting}{wait})..."
    ),
    "party.needWith": "ramino-play: для --party потрібні гравці, яких запросити (--with ГРАВЕЦЬ)",
    "party.invited": "Запрошено [bold]{player}[/bold]: нехай запустить  {command}",
    "party.joined": "{name} приєднується.",
    "party.joinedLeader": "Ви в компанії [bold]{leader}[/bold]: чекаємо на стіл...",
}

WORDS: dict[Lang, dict[str, str]] = {"en": _EN, "it": _IT, "uk": _UK}

COUNTED: dict[Lang, dict[str, dict[str, str]]] = {
    "en": {
        "cards": {"one": "{n} card", "other": "{n} cards"},
        "points": {"one": "{n} point", "other": "{n} points"},
        "players": {"one": "{n} more player", "other": "{n} more players"},
        "jokers": {"one": "{n} joker", "other": "{n} jokers"},
    },
    "it": {
        "cards": {"one": "{n} carta", "many": "{n} di carte", "other": "{n} carte"},
        "points": {"one": "{n} punto", "many": "{n} di punti", "other": "{n} punti"},
        "players": {
            "one": "{n} giocatore",
            "many": "{n} di giocatori",
            "other": "{n} giocatori",
        },
        "jokers": {"one": "{n} jolly", "many": "{n} di jolly", "other": "{n} jolly"},
    },
    "uk": {
        "cards": {"one": "{n} карта", "few": "{n} карти", "many": "{n} карт", "other": "{n} карти"},
        "points": {"one": "{n} очко", "few": "{n} очки", "many": "{n} очок", "other": "{n} очка"},
        "players": {
            "one": "{n} гравець",
            "few": "{n} гравці",
            "many": "{n} гравців",
            "other": "{n} гравця",
        },
        "jokers": {
            "one": "{n} джокер",
            "few": "{n} джокери",
            "many": "{n} джокерів",
            "other": "{n} джокера",
        },
    },
}


def plural(language: Lang, n: int) -> str:
    """The CLDR plural category of the count ``n`` in ``language``: "one",
    "few", "many" or "other" (the rules of CLDR's plurals.xml for whole numbers)."""
    n = abs(n)
    if language == "uk":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if language == "it" and n != 0 and n % 1_000_000 == 0:
        return "many"
    return "one" if n == 1 else "other"


def choose(flag: str | None = None, env: Mapping[str, str] | None = None) -> Lang:
    """The language of the words: ``flag`` (``--lang``) if given, else the
    first language setting of ``env`` that names one (``RAMINO_LANG``, then
    gettext's ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English.

    A setting names a language by its first code ("uk_UA.UTF-8", "uk:en"); a
    setting of a language the words lack passes to the next one, save ``C``
    and ``POSIX``, which mean no language: English."""
    if flag:
        return _code(flag) or "en"
    import os

    env = os.environ if env is None else env
    for name in _ENV:
        for value in env.get(name, "").split(":"):
            base = re.split(r"[_.@-]", value.strip().lower(), maxsplit=1)[0]
            if base in ("c", "posix"):
                return "en"
            found = _code(base)
            if found:
                return found
    return "en"


def _code(text: str) -> Lang | None:
    base = re.split(r"[_.@-]", text.strip().lower(), maxsplit=1)[0]
    return next((code for code in LANGS if code == base), None)


_current: Lang = "en"


def set_lang(language: Lang) -> None:
    global _current
    _current = language


def lang() -> Lang:
    return _current


def t(key: str, **params: object) -> str:
    """The words of ``key`` in the current language, ``{name}`` filled from ``params``."""
    text = WORDS[_current].get(key) or _EN.get(key, key)
    return _fill(text, params)


def count(key: str, n: int) -> str:
    """The counted word ``key`` for ``n``: "1 карта", "2 карти", "5 карт", "21 карта"."""
    forms = COUNTED[_current].get(key) or COUNTED["en"][key]
    text = forms.get(plural(_current, n)) or forms["other"]
    return _fill(text, {"n": n})


def level(value: str) -> str:
    """A bot level's name in words ("жадібний"), its code when there are none."""
    key = f"level.{value}"
    text = t(key)
    return value if text == key else text


def _fill(text: str, params: Mapping[str, object]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m[1]]) if m[1] in params else m[0], text)
