//! Greedy self-play data (issue 49, item 1; the format: `docs/selfplay.md`).
//!
//! `cargo run --release -p ramino-core --bin selfplay -- --variant gin
//! --hands 10000 --seed 1 --out data/gin` writes `header.json` and the flat
//! files of [`ramino_core::selfplay`] to `--out`, and prints the positions
//! a second it made. `--search-iterations N` chooses by the kernel's
//! playouts (N deals a decision) where the searching bots search, and
//! writes each candidate's value.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use ramino_core::selfplay::{header, run, Config, Files, Search};
use ramino_core::Variant;

const USAGE: &str = "usage: selfplay [--variant NAME] [--players N] [--hands N] [--seed N] \
                     [--threads N] [--no-legal-mask] [--search-iterations N [--search-width N]] --out DIR";

struct Args {
    variant: String,
    players: usize,
    hands: u64,
    seed: u64,
    threads: usize,
    legal_mask: bool,
    search: Option<Search>,
    out: PathBuf,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        variant: "gin".into(),
        players: 2,
        hands: 1000,
        seed: 1,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
        legal_mask: true,
        search: None,
        out: PathBuf::new(),
    };
    let mut out = None;
    while let Some(flag) = args.next() {
        if flag == "--no-legal-mask" {
            a.legal_mask = false;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse::<u64>().map_err(|_| format!("{flag}: not a number: {v}"));
        match flag.as_str() {
            "--variant" => a.variant = value,
            "--players" => a.players = number(&value)? as usize,
            "--hands" => a.hands = number(&value)?,
            "--seed" => a.seed = number(&value)?,
            "--threads" => a.threads = (number(&value)? as usize).max(1),
            "--out" => out = Some(PathBuf::from(value)),
            "--search-iterations" => {
                let n = u32::try_from(number(&value)?).map_err(|_| format!("{flag}: too large"))?;
                a.search.get_or_insert_with(Search::default).iterations = n.max(1);
            }
            "--search-width" => {
                a.search.get_or_insert_with(Search::default).width = (number(&value)? as usize).max(2);
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    a.out = out.ok_or("--out is needed")?;
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let variant = match Variant::preset(&args.variant) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if !(usize::from(variant.min_players)..=usize::from(variant.max_players)).contains(&args.players) {
        eprintln!(
            "{} plays with {} to {} players",
            variant.name, variant.min_players, variant.max_players
        );
        return ExitCode::from(2);
    }
    let mut config = Config::new(variant, args.players, args.seed);
    config.legal_mask = args.legal_mask;
    config.search = args.search;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let result = Files::create(&args.out, &config).and_then(|mut files| {
        let started = Instant::now();
        let written = run(&config, args.hands, args.threads, &mut files)?;
        files.finish()?;
        let seconds = started.elapsed().as_secs_f64();
        std::fs::write(args.out.join("header.json"), header(&config, written, &command))?;
        println!(
            "{} {}p: {} hands, {} positions in {:.2} s on {} threads: {:.0} positions/s, {:.0} hands/s",
            config.variant.name,
            config.players,
            written.hands,
            written.rows,
            seconds,
            args.threads,
            written.rows as f64 / seconds,
            written.hands as f64 / seconds,
        );
        if written.refused > 0 {
            eprintln!(
                "{} decisions the playouts refused to weigh (the greedy policy chose)",
                written.refused
            );
        }
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e}", args.out.display());
            ExitCode::FAILURE
        }
    }
}
