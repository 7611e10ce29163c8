//! Self-play data (issue 49, item 1): a row holds only what the seat may
//! see, the data are the same for a seed whatever the threads, and the
//! files hold what the header says.

use std::sync::Arc;

use ramino_core::game::{greedy, CardId, Event, Game, Rules, Setup, State};
use ramino_core::selfplay::{
    action_index, features, header, play_block, run, Block, Config, Files, Search, Shown, ACTIONS, BLOCK, FILES, METAS,
    OUTCOMES,
};
use ramino_core::{ChaCha20, Variant};

const PRESETS: [&str; 4] = ["ramino51", "rami51", "rummy", "gin"];

fn config(preset: &str, players: usize, seed: u64) -> Config {
    Config::new(Variant::preset(preset).unwrap(), players, seed)
}

/// `state` with the cards `seat` cannot place (the other hands but what
/// they took from the discard pile and still hold, and the stock) dealt
/// again at random into the same places.
fn permuted(state: &State, shown: &Shown, seat: usize, rng: &mut ChaCha20) -> State {
    let mut out = state.clone();
    let hidden = |other: usize, c: CardId| other != seat && !shown.took(other).contains(&c);
    let mut pool: Vec<CardId> = Vec::new();
    for (other, s) in state.seats.iter().enumerate() {
        pool.extend(s.hand.iter().copied().filter(|&c| hidden(other, c)));
    }
    pool.extend(&state.stock);
    for i in (1..pool.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        pool.swap(i, j);
    }
    let mut next = pool.into_iter();
    for (other, s) in out.seats.iter_mut().enumerate() {
        for c in &mut s.hand {
            if hidden(other, *c) {
                *c = next.next().unwrap();
            }
        }
    }
    for c in &mut out.stock {
        *c = next.next().unwrap();
    }
    out
}

/// Plays `games` first hands of `preset` by the greedy policy, calling
/// `visit` before every command with the state, what was shown and the
/// seat to move.
fn walk(preset: &str, players: usize, games: u64, mut visit: impl FnMut(&Rules, &State, &Shown, usize)) {
    let rules = Arc::new(Rules::new(Variant::preset(preset).unwrap()));
    let names: Vec<String> = (0..players).map(|i| format!("p{i}")).collect();
    for k in 0..games {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&k.to_le_bytes());
        let setup = Setup {
            seed,
            decks: Vec::new(),
        };
        let (mut game, _) = Game::new(rules.clone(), &names, setup).unwrap();
        let mut shown = Shown::new(players);
        let mut rng = ChaCha20::from_seed(&seed);
        for _ in 0..2000 {
            let Some(seat) = game.turn_now() else { break };
            visit(&rules, &game.state, &shown, seat);
            let cmd = greedy::choose(&game.state, &rules, seat, &mut |n| rng.below(n as u32) as usize).unwrap();
            let top = game.state.discard.last().copied();
            let events = game.apply(seat as i64, &cmd).unwrap();
            shown.observe(&rules, top, &events);
            if events.iter().any(|e| matches!(e, Event::RoundEnded(_))) {
                break;
            }
        }
    }
}

#[test]
fn a_row_is_unchanged_when_the_unseen_cards_are_dealt_again() {
    // Rows where another hand held a card it took from the pile (which the
    // dealing again keeps in place).
    let mut known_held = 0;
    for preset in PRESETS {
        let most = usize::from(Variant::preset(preset).unwrap().max_players).min(3);
        for players in 2..=most {
            let c = config(preset, players, 0);
            let mut rng = ChaCha20::from_seed(&[9; 32]);
            let (mut rows, mut own_hand_differs) = (0, 0);
            walk(preset, players, 6, |rules, state, shown, seat| {
                let mut row = Vec::new();
                features(&c, rules, state, shown, seat, &mut row);
                for _ in 0..3 {
                    let other = permuted(state, shown, seat, &mut rng);
                    let mut again = Vec::new();
                    features(&c, rules, &other, shown, seat, &mut again);
                    assert_eq!(row, again, "{preset}: a row changed with the unseen cards");
                    assert_eq!(
                        shown.seen(rules, state, seat),
                        shown.seen(rules, &other, seat),
                        "{preset}: the search's input changed with the unseen cards"
                    );
                }
                // The search's input accounts for every card once.
                let seen = shown.seen(rules, state, seat);
                let unknown: usize = (0..players)
                    .filter(|&o| o != seat)
                    .map(|o| seen.seats[o].hand_size - seen.seats[o].known.len())
                    .sum();
                assert_eq!(seen.unseen.len(), seen.stock_size + unknown, "{preset}: unseen cards");
                // The control: a row does change with the seat's own hand.
                let mut swapped = state.clone();
                if let (Some(h), Some(s)) = (swapped.seats[seat].hand.first_mut(), swapped.stock.first_mut()) {
                    if rules.card(*h) != rules.card(*s) {
                        std::mem::swap(h, s);
                        let mut changed = Vec::new();
                        features(&c, rules, &swapped, shown, seat, &mut changed);
                        assert_ne!(row, changed, "{preset}: a row blind to the seat's own hand");
                        own_hand_differs += 1;
                    }
                }
                let held = (0..players)
                    .filter(|&o| o != seat)
                    .any(|o| shown.took(o).iter().any(|c| state.seats[o].hand.contains(c)));
                known_held += usize::from(held);
                rows += 1;
            });
            assert!(rows > 100 && own_hand_differs > 50, "{preset}: {rows} rows");
        }
    }
    assert!(known_held > 100, "{known_held} rows with a card taken and held");
}

#[test]
fn self_play_is_deterministic_for_a_seed_whatever_the_threads() {
    for preset in PRESETS {
        let c = config(preset, 2, 5);
        let a = play_block(&c, 3, 4);
        assert_eq!(a, play_block(&c, 3, 4), "{preset}");
        assert_ne!(a, play_block(&config(preset, 2, 6), 3, 4), "{preset}: the seed counts");
        assert_ne!(a, play_block(&c, 4, 4), "{preset}: blocks differ");
    }
    let dir = std::env::temp_dir().join(format!("ramino-selfplay-{}", std::process::id()));
    let c = config("rummy", 3, 11);
    let mut files = Vec::new();
    for threads in [1, 3] {
        let d = dir.join(format!("t{threads}"));
        let mut out = Files::create(&d, &c).unwrap();
        let written = run(&c, 2 * BLOCK + 5, threads, &mut out).unwrap();
        out.finish().unwrap();
        assert_eq!(written.hands, 2 * BLOCK + 5);
        files.push(FILES.map(|f| std::fs::read(d.join(f)).unwrap()));
    }
    assert_eq!(files[0], files[1], "the files depend on the threads");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_files_hold_what_the_header_says() {
    for preset in PRESETS {
        let c = config(preset, 2, 1);
        let dir = std::env::temp_dir().join(format!("ramino-selfplay-h-{preset}-{}", std::process::id()));
        let mut out = Files::create(&dir, &c).unwrap();
        let written = run(&c, 40, 2, &mut out).unwrap();
        out.finish().unwrap();
        let rows = written.rows as usize;
        let sizes = [
            rows * c.width() * 4,
            rows * 4,
            rows * ACTIONS,
            rows * OUTCOMES * 4,
            rows * METAS * 4,
        ];
        for (name, size) in FILES.iter().zip(sizes) {
            let len = std::fs::metadata(dir.join(name)).unwrap().len() as usize;
            assert_eq!(len, size, "{preset}: {name}");
        }
        let layout = c.layout();
        let (_, at, w) = layout.last().unwrap();
        assert_eq!(at + w, c.width(), "{preset}: the layout's end");
        assert!(layout.windows(2).all(|p| p[0].1 + p[0].2 == p[1].1));
        let h = header(&c, written, "selfplay --test");
        assert!(h.contains(&format!("\"shape\": [{rows}, {}]", c.width())), "{h}");
        assert!(h.contains(&format!("\"variant\": \"{preset}\"")));
        // Every chosen move is among the legal ones, and every row has an
        // outcome: the winner's rows say won.
        let block = play_block(&c, 0, 8);
        assert_eq!(block.outcomes.len(), block.rows() * OUTCOMES);
        for (r, &a) in block.actions.iter().enumerate() {
            assert_eq!(block.legal[r * ACTIONS + a as usize], 1, "{preset}: row {r}");
            assert!(block.legal[r * ACTIONS..(r + 1) * ACTIONS].contains(&1));
        }
        assert!(
            block.outcomes.chunks(OUTCOMES).any(|o| o[0] == 1.0),
            "{preset}: nobody won"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert_eq!(
        action_index(&Rules::new(Variant::gin()), &ramino_core::game::Command::Resign),
        None
    );
}

/// A block's numbers as bits (a NaN equals itself).
fn bits(b: &Block) -> (Vec<u32>, Vec<i32>, Vec<u32>, Vec<i32>) {
    let f = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    (f(&b.features), b.actions.clone(), f(&b.values), b.meta.clone())
}

#[test]
fn a_searched_row_holds_the_value_of_each_move_weighed_and_chooses_among_them() {
    for preset in PRESETS {
        let mut c = config(preset, 2, 3);
        c.search = Some(Search {
            iterations: 8,
            ..Search::default()
        });
        let block = play_block(&c, 0, 2);
        assert_eq!(bits(&block), bits(&play_block(&c, 0, 2)), "{preset}: not deterministic");
        assert_eq!(block.values.len(), block.rows() * ACTIONS);
        let mut searched = 0;
        for r in 0..block.rows() {
            let values = &block.values[r * ACTIONS..(r + 1) * ACTIONS];
            let weighed = values.iter().filter(|v| !v.is_nan()).count();
            let action = block.actions[r] as usize;
            if block.meta[r * METAS + 4] == 1 {
                assert!(weighed >= 2, "{preset}: row {r} weighed {weighed}");
                assert!(!values[action].is_nan(), "{preset}: the move chosen was not weighed");
                for (a, v) in values.iter().enumerate() {
                    if !v.is_nan() {
                        assert_eq!(block.legal[r * ACTIONS + a], 1, "{preset}: an illegal move weighed");
                    }
                }
                searched += 1;
            } else {
                assert_eq!(weighed, 0, "{preset}: row {r}");
            }
        }
        assert!(searched > 10, "{preset}: {searched} rows searched");
        assert_eq!(block.refused, 0, "{preset}: decisions the playouts refused");
    }
}

#[test]
fn a_card_taken_back_by_the_seat_that_threw_it_is_known_once() {
    let rules = Rules::new(Variant::ramino51());
    let mut shown = Shown::new(2);
    let (card, other): (CardId, CardId) = (7, 8);
    for e in [
        Event::TookDiscard { seat: 1, card },
        Event::Discarded { seat: 1, card },
        Event::TookDiscard { seat: 1, card },
    ] {
        shown.observe(&rules, None, std::slice::from_ref(&e));
    }
    assert_eq!(shown.known(1, &[card, other]).collect::<Vec<_>>(), vec![card]);
}
